import Foundation
import Positioning
import PositioningTuning
import Testing

/// The covariance every answer carries, the posterior it comes from, and how the tuner chooses between
/// uncertainty models.
@Suite("Uncertainty: a posterior's covariance and a radius drawn from it")
struct UncertaintyTests {
    /// Two places the scan fits equally well, 4 m apart along x, and a third, 4 m off the line, that fits
    /// three times worse.
    static let spots = [
        Spot(name: "west", x: 0, y: 0, floor: 0), Spot(name: "east", x: 4, y: 0, floor: 0), Spot(name: "north", x: 0, y: 4, floor: 0),
    ]
    static let candidates = [
        SpotCandidate(spotIndex: 0, spot: spots[0], distance: 1), SpotCandidate(spotIndex: 1, spot: spots[1], distance: 1),
        SpotCandidate(spotIndex: 2, spot: spots[2], distance: 3),
    ]

    static func estimator(_ uncertainty: UncertaintyModel) -> WeightedNearestSpots {
        WeightedNearestSpots(
            neighbourCount: 2, weighting: .uniform, minimumAccuracy: 0, accuracyScale: 1, resolution: 0.1, uncertainty: uncertainty)
    }

    @Test("a posterior split between two places is long along the line between them, and its 68% circle is the radius")
    func posteriorIsLongBetweenTwoPlaces() throws {
        // Given the posterior over all three candidates at temperature 0.5 (north weighs e^-4 of the others)
        let estimator = Self.estimator(.posterior(temperature: 0.5, candidates: 3))
        #expect(estimator.candidatesWanted == 3)
        // When the position is estimated
        let position = estimator.estimate(from: Self.candidates, spots: SpotGrid(spots: Self.spots))
        // Then it lies between west and east
        #expect(abs(position.x - 2) < 1e-9 && abs(position.y) < 1e-9)
        // And its covariance is long along x (±2 m) and thin across (north's small weight, the resolution)
        let covariance = try #require(position.covariance)
        let north = exp(-4.0), total = 2 + north
        let xx = (4 + 4 + north * 4) / total + 0.005, yy = north * 16 / total + 0.005, xy = north * (-2 * 4) / total
        let radius = (xx + yy).squareRoot()
        #expect(abs(position.accuracy - radius) < 1e-9)
        // And the covariance keeps that shape, scaled so that its 68% circle is the radius
        let factor = radius * radius / (PositionCovariance.radiusFactor * PositionCovariance.radiusFactor) / (xx + yy)
        #expect(abs(covariance.xx - xx * factor) < 1e-9 && abs(covariance.yy - yy * factor) < 1e-9 && abs(covariance.xy - xy * factor) < 1e-9)
        #expect(covariance.xx > 10 * covariance.yy)
        #expect(abs(PositionCovariance.radiusFactor * covariance.trace.squareRoot() - position.accuracy) < 1e-9)
    }

    @Test("a colder posterior forgets the poor match; the neighbours' spread never saw it")
    func temperatureNarrows() throws {
        // Given a cold posterior (north weighs e^-40) and the neighbours' spread of the two nearest
        let cold = Self.estimator(.posterior(temperature: 0.05, candidates: 3)).estimate(from: Self.candidates, spots: SpotGrid(spots: Self.spots))
        let spread = Self.estimator(.neighbourSpread).estimate(from: Self.candidates, spots: SpotGrid(spots: Self.spots))
        // Then both are ±2 m along x and only the resolution across
        for position in [cold, spread] {
            #expect(abs(position.accuracy - (4 + 0.01).squareRoot()) < 1e-9)
            let covariance = try #require(position.covariance)
            #expect(abs(covariance.xy) < 1e-9 && covariance.yy < 0.002 * covariance.xx)
        }
    }

    @Test("the neighbours' spread gives the radius tunings before the posterior gave")
    func neighbourSpreadKeepsOlderRadius() throws {
        // Given a tuning stored before the uncertainty model existed (no `uncertainty`)
        var older = TunedConfiguration.untuned
        older.accuracyScale = 2
        older.resolution = 1
        older.neighbourCount = 2
        let json = try JSONEncoder().encode(older)
        #expect(!String(decoding: json, as: UTF8.self).contains("uncertainty"))
        let decoded = try JSONDecoder().decode(TunedConfiguration.self, from: json)
        // When its estimator places a scan between two equally good fingerprints 2 m apart
        let estimator = decoded.estimator
        #expect(estimator.uncertainty == .neighbourSpread)
        let position = estimator.estimate(
            from: [SpotCandidate(spotIndex: 0, spot: Self.spots[0], distance: 1), SpotCandidate(spotIndex: 3, spot: Spot(name: "mid", x: 2, y: 0, floor: 0), distance: 1)],
            spots: SpotGrid(spots: Self.spots))
        // Then the radius is scale · sqrt(spread² + resolution²) = 2 · sqrt(1 + 1), as before
        #expect(abs(position.accuracy - 2 * 2.0.squareRoot()) < 1e-9)
    }

    @Test("a covariance with no extent scales to a round one")
    func roundWhenNoExtent() {
        let round = PositionCovariance(xx: 0, xy: 0, yy: 0).scaled(toRadius: 3)
        #expect(round.xx == round.yy && round.xy == 0)
        #expect(abs(PositionCovariance.radiusFactor * round.trace.squareRoot() - 3) < 1e-12)
        // And the 68% circle of a round Gaussian: 1 − exp(−R² / 2σ²) = 0.68 with σ² = trace / 2
        let sigmaSquared = round.trace / 2
        #expect(abs(1 - exp(-9 / (2 * sigmaSquared)) - 0.68) < 1e-12)
    }

    @Test("the uncertainty score prefers radii that are wide where answers are bad over one radius for all")
    func scorePrefersInformativeRadii() {
        // Given answers with errors 1 m and 4 m, one model's radii following them, the other's all alike
        func answers(radius: (Double) -> Double) -> [(query: Int, protocol: SurveyCrossValidation.ValidationProtocol, answer: SurveyCrossValidation.Answer?)] {
            [1.0, 1, 1, 4, 4, 4].enumerated().map { index, error in
                (index, .spotOut, SurveyCrossValidation.Answer(
                    error: error, bestDistance: 1, radius: radius(error),
                    position: Position(x: 0, y: 0, floor: 0, accuracy: 1, spot: "a", zone: nil)))
            }
        }
        let following = SurveyTuner.uncertaintyScore(of: answers { $0 }, protocols: [.spotOut])
        let alike = SurveyTuner.uncertaintyScore(of: answers { _ in 1 }, protocols: [.spotOut])
        // Then the following radii score lower (both are calibrated to 68% first, so scale alone cannot win)
        #expect(following < alike)
        // And a protocol without answers does not count
        #expect(SurveyTuner.uncertaintyScore(of: answers { $0 }, protocols: [.spotOut, .atSpot]) == following)
    }
}
