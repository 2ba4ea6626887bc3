import Foundation
public import Positioning
public import ScanFormats

/// A simulated surveyor's time budget spent two ways, for comparing a walking survey with a stand-still one.
extension SimulatedVenue {
    /// Scan-log lines (without coordinates) and checkpoints of `device` walking through `stops` in turn,
    /// and back again, for `seconds`, one sample a second, tapping a checkpoint at every stop it passes.
    ///
    /// The surveyor is not a robot: each leg is walked at its own pace (0.8 to 1.2 m/s), the pace swings
    /// from half to one and a half times that within the leg, and each tap lands up to about a second
    /// off (a normal spread of 0.4 s). Moving between floors takes 20 s on the stairs, where samples are
    /// taken but no checkpoint is tapped. So the walk's straight-line placement errs as a real one would.
    /// - Returns: the lines, the checkpoints tapped, and where each line was really taken (for measuring the
    ///   placement), in time order.
    public func walkingSurvey(
        stops: [SimulatedStop], device: SimulatedDevice, seconds: Double, startTime: Double,
        using generator: inout SeededGenerator
    ) -> (lines: [ScanLine], checkpoints: [Checkpoint], truth: [FloorPoint]) {
        guard let firstStop = stops.first else { return ([], [], []) }
        var lines: [ScanLine] = []
        var truth: [FloorPoint] = []
        var checkpoints: [Checkpoint] = []
        var nextSample = startTime
        let end = startTime + seconds
        func tap(_ stop: SimulatedStop, at time: Double, using generator: inout SeededGenerator) {
            var tapped = time + max(-1, min(1, generator.gaussian(deviation: 0.4)))
            if let previous = checkpoints.last?.time { tapped = max(tapped, previous + 0.05) }
            checkpoints.append(Checkpoint(time: tapped, position: FloorPoint(x: stop.x, y: stop.y, floor: stop.floor)))
        }
        func emit(x: Double, y: Double, floor: Int, heading: Double, until time: Double, using generator: inout SeededGenerator) {
            while nextSample <= min(time, end) {
                let sample = self.sample(x: x, y: y, floor: floor, heading: heading, device: device, time: nextSample, using: &generator)
                lines.append(ScanLine(t: nextSample, device: device.name, beacons: sample.readings.map(ScanLine.BeaconReading.init)))
                truth.append(FloorPoint(x: x, y: y, floor: floor))
                nextSample += 1
            }
        }
        var route = stops
        var time = startTime
        var current = firstStop
        tap(current, at: time, using: &generator)
        while time < end {
            for stop in route.dropFirst() {
                guard time < end else { break }
                if stop.floor != current.floor {
                    let stairsEnd = time + 20
                    emit(x: current.x, y: current.y, floor: current.floor, heading: 0, until: stairsEnd, using: &generator)
                    time = stairsEnd
                } else {
                    let dx = stop.x - current.x, dy = stop.y - current.y
                    let length = (dx * dx + dy * dy).squareRoot()
                    let pace = 0.8 + 0.4 * generator.unit()
                    let duration = max(0.5, length / pace)
                    let heading = atan2(dy, dx)
                    let legStart = time
                    while nextSample <= min(legStart + duration, end) {
                        let elapsed = (nextSample - legStart) / duration
                        // The pace swings within the leg: the share walked runs ahead, then behind, the share of time.
                        let walked = elapsed - 0.5 * sin(2 * Double.pi * elapsed) / (2 * Double.pi)
                        emit(x: current.x + walked * dx, y: current.y + walked * dy, floor: stop.floor, heading: heading, until: nextSample, using: &generator)
                    }
                    time = legStart + duration
                }
                if time <= end { tap(stop, at: time, using: &generator) }
                current = stop
            }
            route.reverse()
        }
        // Samples taken after the last tap (the budget ran out mid-leg) stay in the log, as a phone would
        // keep them: the recorder leaves them out and counts them.
        return (lines, checkpoints, truth)
    }
}
