import Positioning
import Testing

@Suite("A beacon's live level per place: what a shift is measured against")
struct PlaceLevelsTests {
    @Test("a place the survey mispredicts reads as its own level after a few readings, not as a shift")
    func mispredictedPlace() {
        // Given ten places at the survey's level and one, by the beacon, 15 dB louder than the survey says
        var levels = PlaceLevels()
        var index: Int32 = 0
        for place in Int32(0)..<10 {
            levels.record(place: place, residual: 0, index: index)
            index += 1
        }
        // When the loud place has been heard a few times
        let first = 15 - levels.reference(at: 10, prior: 2)
        for _ in 0..<6 {
            levels.record(place: 10, residual: 15, index: index)
            index += 1
        }
        // Then its first reading departs by the whole error, and later ones by under a step
        #expect(first == 15)
        #expect(15 - levels.reference(at: 10, prior: 2) < 4)
        #expect(levels.venueLevel() == 0)
    }

    @Test("a change at every place departs from each place's level, and a rollback takes back what was learned")
    func changeEverywhere() {
        // Given places heard at the survey's level, settled
        var levels = PlaceLevels()
        for place in Int32(0)..<5 {
            for reading in 0..<4 { levels.record(place: place, residual: 0, index: place * 4 + Int32(reading)) }
        }
        levels.settle()
        // When the beacon is 10 dB quieter from now on, at known places and a new one
        var departures: [Double] = []
        for place in Int32(0)..<6 {
            departures.append(-10 - levels.reference(at: place, prior: 2))
            levels.record(place: place, residual: -10, index: 100 + place)
        }
        // Then every place's first reading after the change departs by nearly all of it: the known places'
        // by the change less what the venue's level (their prior) has taken in of it, the new place's by the
        // change less the venue's level
        #expect(departures.prefix(5).allSatisfy { $0 <= -9 }, "\(departures)")
        #expect(abs(departures[5] + 8) < 1e-6, "\(departures)")
        #expect(levels.reference(at: 0, prior: 2) < -1)
        // And once the shift is named, the places' levels are what they were before it; the new place is gone
        levels.rollBack()
        #expect(levels.reference(at: 0, prior: 2) == 0)
        #expect(levels.entries.count == 5)
    }

    @Test("at most 64 places are followed; the stalest makes room")
    func bounded() {
        var levels = PlaceLevels()
        for place in Int32(0)..<100 { levels.record(place: place, residual: Double(place), index: place) }
        #expect(levels.entries.count == PlaceLevels.capacity)
        #expect(!levels.entries.contains { $0.place < 36 })
    }
}
