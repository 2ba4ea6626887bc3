import Positioning
import Testing

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
        let samples = (0..<5).map { Fixtures.sample([7: -60, 8: -63 - Double($0 % 2)], time: Double($0)) }
        guard case .undecided(let candidates, let reason) = decider.decide(samples) else {
            Issue.record("expected undecided")
            return
        }
        #expect(candidates.map(\.beacon) == [Fixtures.beacon(7), Fixtures.beacon(8)])
        #expect(reason.contains("dB"))
    }

    @Test("a lead that flips between samples is not consistent enough")
    func inconsistent() {
        // Mean lead above 6 dB, but the runner-up is strongest in 2 of 5 samples
        let samples = [
            Fixtures.sample([7: -50, 8: -75]), Fixtures.sample([7: -50, 8: -75]), Fixtures.sample([7: -50, 8: -75]),
            Fixtures.sample([7: -70, 8: -65]), Fixtures.sample([7: -70, 8: -65]),
        ]
        guard case .undecided = decider.decide(samples) else {
            Issue.record("expected undecided")
            return
        }
    }

    @Test("nothing usable gives nothing, a beacon heard too rarely is undecided")
    func nothing() {
        #expect(decider.decide([]) == .nothing(reason: "no samples were given"))
        guard case .nothing = decider.decide([Fixtures.sample([1: 0]), Fixtures.sample([:])]) else {
            Issue.record("expected nothing")
            return
        }
        guard case .undecided = decider.decide([Fixtures.sample([1: -50]), Fixtures.sample([:]), Fixtures.sample([:])]) else {
            Issue.record("expected undecided")
            return
        }
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
