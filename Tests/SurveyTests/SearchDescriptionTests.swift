import Positioning
import survey
import Testing

/// What `survey tune` says about how a venue's map is searched.
@Suite("survey tune: the candidate search described")
struct SearchDescriptionTests {
    /// A recall as the tuner measures it: `found32` of 9,600 of the 32 nearest, all of the 8 nearest.
    static func recall(found32: Int) -> CandidateSearchRecall {
        var recall = CandidateSearchRecall()
        (recall.found8, recall.wanted8) = (2_400, 2_400)
        (recall.found32, recall.wanted32) = (found32, 9_600)
        (recall.blocksRead, recall.blocks, recall.queries) = (15_000, 300_000, 300)
        return recall
    }

    @Test("a step of the ladder is named with the recall that chose it")
    func ladderStep() {
        // Given the tuner chose the ladder's narrowest step with 9,599 of the 32 nearest spots kept
        let description = VenueTuning.describeSearch(Locator.strongestBeaconLadder[0], recall: Self.recall(found32: 9_599))
        // Then the sentence names the step and the figures
        #expect(description.hasPrefix("strongest beacons, 2 of the scan's 4 strongest among a fingerprint's 4 strongest ("), "\(description)")
        #expect(description.contains("8 nearest spots 100.0%, of its 32 nearest 100.0% on 300 survey scans, reading 5.0% of the map"), "\(description)")
    }

    @Test("a spots-first search is named with its spots, its coarse step and the recall")
    func spotsFirst() {
        // Given the tuner chose the 64 nearest spot centroids ranked inside the ladder's narrowest step
        let search = CandidateSearch.spotsFirst(keep: 64, coarse: Locator.strongestBeaconLadder[0])
        let description = VenueTuning.describeSearch(search, recall: Self.recall(found32: 9_599))
        // Then the sentence names both stages and the figures, never the exact index
        #expect(
            description.hasPrefix(
                "spots first, the fingerprints of the 64 nearest spot centroids, ranked where 2 of the scan's 4 strongest among a centroid's 4 strongest ("),
            "\(description)")
        #expect(description.contains("of its 32 nearest 100.0% on 300 survey scans"), "\(description)")
    }

    @Test("the exact beacon index, when every step fell short or the map is small")
    func exactIndex() {
        // Given no step kept 99.9% of the 32 nearest (the widest kept 9,500 of 9,600)
        let short = VenueTuning.describeSearch(.beaconIndex, recall: Self.recall(found32: 9_500))
        // Then the sentence says the search falls short, with the figures and the bar
        #expect(short.hasPrefix("exact beacon index: the strongest-beacon search falls short under this metric (recall"), "\(short)")
        #expect(short.contains("of its 32 nearest 99.0%") && short.contains("at least 100% and 99.9% are required"), "\(short)")
        // And a small map, where nothing was measured, is read whole
        #expect(VenueTuning.describeSearch(.beaconIndex, recall: nil) == "exact beacon index (the map is small enough to read whole)")
    }
}
