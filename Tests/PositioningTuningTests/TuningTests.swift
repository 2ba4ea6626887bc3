import ScanFormats
import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport
import VenueSimulator

@Suite("Per-venue tuning: reference windows, fingerprint neighbours, cross-validation, choice")
struct TuningTests {
    /// A small simulated grid venue surveyed by `devices`, as stored fingerprints of one sample each.
    static func simulatedSurvey(devices: [SimulatedDevice] = [SimulatedDevice(name: "survey-phone", gainOffset: 0)])
        throws -> (spots: [Spot], survey: [SurveyedFingerprint])
    {
        let venue = try SimulatedVenues.grid(beacons: 16, spots: 25, seed: 3)
        var generator = SeededGenerator(seed: 11)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        var lines: [ScanLine] = []
        for (index, device) in devices.enumerated() {
            lines += venue.record(stops: stops, device: device, samples: 6, startTime: 1_795_000_000 + Double(index) * 10_000, using: &generator)
        }
        let samples = try lines.map { LabelledSample(sample: try $0.sample(), truth: $0.groundTruth!) }
        let built = SurveyFingerprints(
            survey: samples, windowSize: 1, spots: venue.definition.spots, builder: PositioningConfiguration().builder)
        return (built.spots, built.surveyed)
    }

    @Test("merging stored windows gives the fingerprint of all their samples at once")
    func mergingEqualsOneWindow() throws {
        // Given six samples of one phone at one place, with a beacon missing from some of them
        let samples = [
            Fixtures.sample([1: -60, 2: -70, 3: -80]), Fixtures.sample([1: -62, 2: -71]), Fixtures.sample([1: -58, 3: -84]),
            Fixtures.sample([1: -61, 2: -69, 3: -79]), Fixtures.sample([2: -75]), Fixtures.sample([1: -64, 2: -72, 3: -81]),
        ]
        let builder = PositioningConfiguration().builder
        // When they are fingerprinted as windows of 2 and 3 and merged
        let whole = try builder.fingerprint(of: samples)
        let merged = Fingerprint.merging(
            [try builder.fingerprint(of: Array(samples[0..<2])), try builder.fingerprint(of: Array(samples[2..<5])),
             try builder.fingerprint(of: [samples[5]])],
            scale: builder.scale)
        // Then every entry agrees with the one-window fingerprint: mean, dispersion, visibility, relative power
        #expect(merged.sampleCount == whole.sampleCount)
        #expect(Set(merged.entries.keys) == Set(whole.entries.keys))
        for (beacon, entry) in whole.entries {
            let other = try #require(merged.entries[beacon])
            #expect(abs(other.meanRSSI - entry.meanRSSI) < 1e-9)
            #expect(abs(other.dispersion - entry.dispersion) < 1e-9)
            #expect(abs(other.visibility - entry.visibility) < 1e-9)
            #expect(abs(other.relativePower - entry.relativePower) < 1e-6)
        }
    }

    @Test("reference windows merge within a run only, never across spots or devices")
    func windowsStayInRuns() throws {
        // Given stored fingerprints in three runs of 5, 2 and 4
        let fingerprint = Fixtures.fingerprint(rssi: [1: -60, 2: -70])
        let runs = [(0, 5), (1, 2), (0, 4)]
        var survey: [SurveyedFingerprint] = []
        for (run, (spot, count)) in runs.enumerated() {
            for index in 0..<count {
                survey.append(SurveyedFingerprint(spot: spot, run: run, device: "p", time: Double(index), fingerprint: fingerprint))
            }
        }
        let scale = PositioningConfiguration.defaultScale
        // Then windows of 2 make 3 + 1 + 2 references, windows of 1 keep all 11, whole runs make 3
        #expect(ReferenceWindow.fingerprints(2).references(of: survey, scale: scale).map(\.fingerprint.sampleCount) == [2, 2, 1, 2, 2, 2])
        #expect(ReferenceWindow.fingerprints(1).references(of: survey, scale: scale).count == 11)
        #expect(ReferenceWindow.wholeRun.references(of: survey, scale: scale).map(\.spot) == [0, 1, 0])
        #expect(ReferenceWindow.wholeRun.references(of: survey, scale: scale).map(\.fingerprint.sampleCount) == [5, 2, 4])
    }

    @Test("fingerprint neighbours: a spot with several close fingerprints pulls harder than one lucky fingerprint")
    func fingerprintNeighbours() throws {
        // Given spot A (x 0) with three fingerprints close to the query and spot B (x 10) with one closer still
        let spots = [Spot(name: "A", x: 0, y: 0, floor: 0), Spot(name: "B", x: 10, y: 0, floor: 0)]
        let near = Fixtures.fingerprint([1: 1, 2: 0.5])
        let map = try RadioMap(spots: spots, fingerprints: [
            (0, Fixtures.fingerprint([1: 1, 2: 0.55])), (0, Fixtures.fingerprint([1: 1, 2: 0.56])), (0, Fixtures.fingerprint([1: 1, 2: 0.44])),
            (1, near),
        ])
        let estimator = WeightedNearestSpots(neighbourCount: 4, weighting: .uniform)
        let metric = EuclideanMetric(penalty: 0.5)
        let query = Fixtures.fingerprint([1: 1, 2: 0.51])
        // When located with spot neighbours and with fingerprint neighbours
        let bySpot = try #require(Locator(metric: metric, estimator: estimator).locate(query, in: map).position)
        let byFingerprint = try #require(Locator(metric: metric, neighbours: .fingerprints, estimator: estimator).locate(query, in: map).position)
        // Then spots weigh once each (midpoint) while fingerprints weigh by count (3 of 4 at A)
        #expect(abs(bySpot.x - 5) < 1e-9)
        #expect(abs(byFingerprint.x - 2.5) < 1e-9)
    }

    @Test("leave-one-spot-out never answers from the query's own spot")
    func leaveOneSpotOut() throws {
        // Given a simulated survey
        let (spots, survey) = try Self.simulatedSurvey()
        let validation = SurveyCrossValidation(spots: spots, survey: survey, scale: PositioningConfiguration.defaultScale)
        // When every query is answered by its single nearest spot
        let answers = try validation.answers(
            of: MapCandidate(window: .wholeRun, metric: TunedConfiguration.untuned.metric),
            estimator: EstimatorChoice(neighbours: .spots, spotBest: 1, neighbourCount: 1, weightingPower: 1), resolution: 0,
            protocols: [.spotOut])
        // Then each answer is another spot, at least the grid spacing away from the truth
        let spacing = try #require(spots.dropFirst().map { $0.planarDistance(toX: spots[0].x, y: spots[0].y) }.min())
        #expect(answers.count == survey.count)
        for (query, _, answer) in answers {
            let answer = try #require(answer)
            #expect(answer.position.spot != spots[survey[query].spot].name)
            #expect(answer.error >= spacing - 1e-9)
        }
    }

    @Test("leave-one-device-out runs when several devices surveyed, and leaves the query's device out")
    func leaveOneDeviceOut() throws {
        // Given a survey by two phones with different gains
        let (spots, survey) = try Self.simulatedSurvey(devices: [
            SimulatedDevice(name: "a", gainOffset: 0), SimulatedDevice(name: "b", gainOffset: -6),
        ])
        let validation = SurveyCrossValidation(spots: spots, survey: survey, scale: PositioningConfiguration.defaultScale)
        #expect(validation.devices == 2)
        // When one configuration is scored
        let scores = try validation.score(
            MapCandidate(window: .wholeRun, metric: TunedConfiguration.untuned.metric),
            estimators: [EstimatorChoice(neighbours: .spots, spotBest: 1, neighbourCount: 4, weightingPower: 2)])
        // Then both protocols have figures, and the objective is their mean
        let score = try #require(scores.first)
        let spotOut = try #require(score.spotOut), deviceOut = try #require(score.deviceOut)
        #expect(spotOut.count == survey.count && deviceOut.count == survey.count)
        #expect(abs(score.objective - (spotOut.mean + deviceOut.mean) / 2) < 1e-12)
        // And leaving the device out keeps the query's own spot, so it errs less than leaving the spot out
        #expect(deviceOut.mean < spotOut.mean)
    }

    @Test("one phone surveying in two sessions: leaving a session out calibrates the radius but does not rank configurations")
    func leaveOneSessionOut() throws {
        // Given one phone that surveyed the venue twice, hours apart (another walk, another day)
        let (spots, survey) = try Self.simulatedSurvey(devices: [
            SimulatedDevice(name: "survey-phone", gainOffset: 0), SimulatedDevice(name: "survey-phone", gainOffset: -4),
        ])
        let validation = SurveyCrossValidation(spots: spots, survey: survey, scale: PositioningConfiguration.defaultScale)
        // Then the survey has one device and two sessions, split where the phone was silent
        #expect(validation.devices == 1 && validation.groups == 2 && validation.groupKind == "session")
        let firstSession = validation.groupOfFingerprint[0]
        #expect(survey.indices.allSatisfy { (validation.groupOfFingerprint[$0] == firstSession) == (survey[$0].time < survey[0].time + SurveyCrossValidation.sessionGap) })
        // And configurations are ranked by leave-one-spot-out alone, as before sessions were told apart
        #expect(validation.scoringProtocols == [.spotOut])
        let candidate = MapCandidate(window: .wholeRun, metric: TunedConfiguration.untuned.metric)
        let estimator = EstimatorChoice(neighbours: .spots, spotBest: 1, neighbourCount: 4, weightingPower: 2)
        let score = try #require(try validation.score(candidate, estimators: [estimator]).first)
        #expect(score.deviceOut == nil)
        // And the radius is calibrated on the spot left out, the session left out and the phone at its spot
        #expect(validation.calibrationProtocols == [.spotOut, .groupOut, .atSpot])
        let answers = try validation.answers(of: candidate, estimator: estimator, resolution: 1, protocols: validation.calibrationProtocols)
        func mean(_ kind: SurveyCrossValidation.ValidationProtocol) -> Double {
            let errors = answers.compactMap { $0.protocol == kind ? $0.answer?.error : nil }
            return errors.reduce(0, +) / Double(errors.count)
        }
        #expect(answers.count == 3 * validation.queries.count)
        // And leaving the session out, or only the query's own reference, keeps the spot (answered from the
        // other session's run there): both err less than leaving the whole spot out
        #expect(mean(.groupOut) < mean(.spotOut))
        #expect(mean(.atSpot) < mean(.spotOut))
    }

    @Test("the radius scale weighs each calibration protocol the same, however many answers it has")
    func calibrationWeighsProtocols() throws {
        // Given 10 spot-out answers at error/radius 1...10 and 2 at-spot answers at 0.5
        func answer(_ ratio: Double) -> SurveyCrossValidation.Answer {
            SurveyCrossValidation.Answer(
                error: ratio, bestDistance: 1, radius: 1, position: Position(x: 0, y: 0, floor: 0, accuracy: 1, spot: "a", zone: nil))
        }
        let answers: [(query: Int, protocol: SurveyCrossValidation.ValidationProtocol, answer: SurveyCrossValidation.Answer?)] =
            (1...10).map { ($0, .spotOut, answer(Double($0))) } + [(0, .atSpot, answer(0.5)), (1, .atSpot, answer(0.5)), (2, .atSpot, nil)]
        // When the scale is calibrated on both protocols
        let scale = SurveyTuner.accuracyScale(calibratedOn: answers, protocols: [.spotOut, .atSpot])
        // Then the at-spot half of the weight sits below every spot-out ratio: 68% is reached at spot-out's
        // 36th percentile (its 4th answer), not at its 68th (the 7th) as pooling every answer alike would give
        #expect(scale == 4)
        #expect(SurveyTuner.accuracyScale(calibratedOn: answers, protocols: [.spotOut]) == 7)
    }

    @Test("the choice: lowest mean, but means within one standard error are ties broken by the lower p90")
    func choiceRule() throws {
        func score(_ errors: [Double], _ count: Int) -> CrossValidationScore {
            CrossValidationScore(
                candidate: MapCandidate(window: .fingerprints(count), metric: TunedConfiguration.untuned.metric),
                estimator: EstimatorChoice(neighbours: .spots, spotBest: 1, neighbourCount: 1, weightingPower: 1),
                spotOut: ErrorStatistics(errors: errors), deviceOut: nil, unanswered: 0)
        }
        // Given a lowest mean with a long tail, a tie within its standard error with a short tail, and a worse one
        let lowest = score([0, 0, 0, 0, 0, 0, 0, 0, 1, 9], 1)  // mean 1.0, p90 1.8, standard error 0.9
        let tied = score([1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5], 2)  // mean 1.5, p90 1.5
        let worse = score([3, 3, 3, 3, 3, 3, 3, 3, 3, 3], 3)
        // Then the tie with the lower p90 wins; without it the lowest mean wins
        #expect(SurveyTuner.best([lowest, tied, worse])?.candidate == tied.candidate)
        #expect(SurveyTuner.best([lowest, worse])?.candidate == lowest.candidate)
        #expect(SurveyTuner.best([]) == nil)
    }

    @Test("tuning a simulated survey stores a configuration that beats the untuned one in cross-validation and calibrates its radius")
    func tuneSimulatedSurvey() throws {
        // Given a simulated survey and a small search space
        let (spots, survey) = try Self.simulatedSurvey()
        let validation = SurveyCrossValidation(spots: spots, survey: survey, scale: PositioningConfiguration.defaultScale)
        var space = TuningSearchSpace.standard
        space.windows = [.fingerprints(1), .wholeRun]
        space.decibelPenalties = [[5, 2]]
        space.offsetShrinkages = [0, nil]
        space.relativePenalties = [[0.4, 0.2]]
        // When it is tuned
        let result = try #require(try SurveyTuner(space: space).tune(validation))
        // Then every map candidate was scored and the winner is among the best (within a standard error)
        #expect(result.candidates.count == space.mapCandidates.count)
        let lowest = try #require(result.candidates.map(\.objective).min())
        #expect(result.score.objective <= lowest + result.candidates.first!.objectiveStandardError + 1e-9)
        // And the radius holds the truth in about 68% of the cross-validation answers
        #expect(abs(result.withinAccuracy - 0.68) < 0.05)
        // And the unknown threshold is three times the farthest cross-validation best match: no
        // cross-validation answer is beyond it
        let threshold = try #require(result.configuration.maximumDistance)
        #expect(threshold.isFinite && threshold > 0)
        #expect(result.unknownAtThreshold == 0)
        // And, one phone in one session, the radius is widened: calibrated between spots only
        #expect(result.calibrationProtocols == [.spotOut] && result.groups == 1 && result.groupKind == "session")
        // And every uncertainty model was scored, and the one with the lowest log-loss is the configuration's
        let scores = try #require(result.uncertaintyScores)
        #expect(scores.map(\.model) == space.uncertaintyModels)
        let lowestLoss = try #require(scores.min { $0.logLoss < $1.logLoss })
        #expect((result.configuration.uncertainty ?? .neighbourSpread) == lowestLoss.model)
        #expect(result.score.estimator.uncertainty == result.configuration.uncertainty)
        // And the tracker's radius has its own scale, from the replayed survey walk
        #expect(try #require(result.configuration.trackerAccuracyScale) > 0)
        // And the tracker table has every window and gain, single scans included
        #expect(result.tracker.count == space.trackerWindows.count * (space.trackerAlphas.count + space.trackerCovarianceGains.count))
        #expect(result.tracker.contains { $0.window == 0 && $0.alpha == 1 && $0.gain == nil })
        #expect(result.tracker.filter { $0.gain != nil }.count == space.trackerWindows.count * space.trackerCovarianceGains.count)
        // And the spots' leave-one-spot-out errors are kept by name, the same as measuring them again
        // under the chosen configuration (to float precision: a map built again need not give bit-identical
        // Float distances; one run in four differed in the 8th digit), one per surveyed spot
        let spotErrors = try #require(result.spotErrors)
        let measured = validation.named(try validation.spotErrors(of: result.configuration))
        #expect(spotErrors.map { [$0.name, "\($0.located)", "\($0.unknown)"] } == measured.map { [$0.name, "\($0.located)", "\($0.unknown)"] })
        for (kept, again) in zip(spotErrors, measured) {
            #expect(abs((kept.meanError ?? -1) - (again.meanError ?? -1)) < 1e-4, "\(kept.name): \(kept) against \(again)")
        }
        #expect(Set(spotErrors.map(\.name)) == Set(Set(survey.map(\.spot)).map { spots[$0].name }))
        #expect(spotErrors.allSatisfy { ($0.meanError != nil) == ($0.located > 0) })
        // And the result survives a round trip through JSON, as the store keeps it
        let json = try JSONEncoder().encode(result)
        let decoded = try JSONDecoder().decode(TuningResult.self, from: json)
        #expect(decoded == result)
        #expect(decoded.configuration.locator.metric.representation == result.configuration.locator.metric.representation)
        // And a result stored before spot errors were kept still reads, without them
        var old = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(old.removeValue(forKey: "spotErrors") != nil)
        let older = try JSONDecoder().decode(TuningResult.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(older.spotErrors == nil && older.configuration == result.configuration)
        // And this small survey is searched exactly, as is a configuration stored before the search was chosen
        #expect(result.configuration.candidateSearch == .beaconIndex && result.candidateSearchRecall == nil)
        var configuration = try #require(old["configuration"] as? [String: Any])
        #expect(configuration.removeValue(forKey: "candidateSearch") != nil)
        let unsearched = try JSONDecoder().decode(TunedConfiguration.self, from: JSONSerialization.data(withJSONObject: configuration))
        #expect(unsearched.candidateSearch == nil && unsearched.locator.candidateSearch == .beaconIndex)
        // And a configuration naming the strongest-beacon search keeps it through JSON into its locator
        var searched = result.configuration
        searched.candidateSearch = Locator.strongestBeaconSearch
        let reread = try JSONDecoder().decode(TunedConfiguration.self, from: JSONEncoder().encode(searched))
        #expect(reread.locator.candidateSearch == Locator.strongestBeaconSearch)
        #expect(reread.positioning().locator.candidateSearch == Locator.strongestBeaconSearch)
    }
}
