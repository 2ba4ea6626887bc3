import Positioning
import Testing
import TestSupport

@Suite("Proximity: the significantly nearest beacon")
struct ProximityTests {
    let decider = ProximityDecider(marginDB: 6, minimumSamples: 3, requiredShare: 0.8)

    @Test("a beacon that leads by the margin in every sample wins")
    func clearWinner() {
        // Given 5 samples at table 7, whose beacon is 10 dB above table 8's
        let samples = (0..<5).map { Fixtures.sample([7: -58 - Double($0 % 2), 8: -69 + Double($0 % 3)], time: Double($0)) }
        // When deciding
        guard case .nearest(let winner, let margin, let runnerUp) = decider.decide(samples) else {
            Issue.record("expected a decision")
            return
        }
        // Then table 7 wins over table 8
        #expect(winner.beacon == Fixtures.beacon(7))
        #expect(runnerUp?.beacon == Fixtures.beacon(8))
        #expect(margin >= 6)
        #expect(winner.strongestIn == 5)
    }

    @Test("two beacons within the margin give the candidates, not a coin toss")
    func tooClose() {
        // Given table 7's beacon 3.4 dB above table 8's on average, short of the 6 dB margin
        let samples = (0..<5).map { Fixtures.sample([7: -60, 8: -63 - Double($0 % 2)], time: Double($0)) }
        // When deciding
        guard case .undecided(let candidates, let reason) = decider.decide(samples) else {
            Issue.record("expected undecided")
            return
        }
        // Then both are candidates, and the reason says the margin was too small, in dB
        #expect(candidates.map(\.beacon) == [Fixtures.beacon(7), Fixtures.beacon(8)])
        #expect(reason.code.rawValue == "margin_too_small")
        #expect(reason.message == "the strongest beacon leads by 3.4 dB; 6.0 dB needed")
    }

    @Test("a lead that flips between samples is not consistent enough")
    func inconsistent() {
        // Mean lead above 6 dB, but the runner-up is strongest in 2 of 5 samples
        let samples = [
            Fixtures.sample([7: -50, 8: -75]), Fixtures.sample([7: -50, 8: -75]), Fixtures.sample([7: -50, 8: -75]),
            Fixtures.sample([7: -70, 8: -65]), Fixtures.sample([7: -70, 8: -65]),
        ]
        guard case .undecided(_, let reason) = decider.decide(samples) else {
            Issue.record("expected undecided")
            return
        }
        #expect(reason == .rarelyStrongest(ledIn: 3, contested: 5))
        #expect(reason.code.rawValue == "rarely_strongest")
        #expect(reason.message == "the strongest beacon led in 3 of 5 samples")
    }

    @Test("nothing usable gives nothing, a beacon heard too rarely is undecided")
    func nothing() {
        // Given no sample at all
        // Then there is nothing to decide, and the message is what the proximity route has always said
        #expect(decider.decide([]) == .nothing(reason: .noSamples))
        #expect(ProximityDecider.NothingReason.noSamples.message == "no samples were given")
        #expect(ProximityDecider.NothingReason.noSamples.code.rawValue == "no_samples")
        // Given two samples whose only reading (RSSI 0, iOS's unknown) does not survive cleaning
        // When deciding
        guard case .nothing(let reason) = decider.decide([Fixtures.sample([1: 0]), Fixtures.sample([:])]) else {
            Issue.record("expected nothing")
            return
        }
        // Then nothing usable was heard
        #expect(reason == .noUsableReading(samples: 2))
        #expect(reason.code.rawValue == "no_usable_reading")
        #expect(reason.message == "no usable beacon reading in 2 samples")
        #expect(ProximityDecider.NothingReason.noUsableReading(samples: 1).message == "no usable beacon reading in 1 sample")
        // Given a beacon heard in 1 of 3 samples, where 3 are needed
        // When deciding
        guard case .undecided(_, let rare) = decider.decide([Fixtures.sample([1: -50]), Fixtures.sample([:]), Fixtures.sample([:])]) else {
            Issue.record("expected undecided")
            return
        }
        // Then it is undecided for too few samples
        #expect(rare == .tooFewSamples(heard: 1, required: 3))
        #expect(rare.code.rawValue == "too_few_samples")
        #expect(rare.message == "the strongest beacon was heard in 1 sample; 3 needed")
    }

    @Test("a single beacon heard consistently is nearest")
    func singleBeacon() {
        guard case .nearest(let winner, _, nil) = decider.decide((0..<4).map { Fixtures.sample([3: -70], time: Double($0)) }) else {
            Issue.record("expected nearest")
            return
        }
        #expect(winner.beacon == Fixtures.beacon(3))
    }
}
