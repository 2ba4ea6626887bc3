/// Waits for something a test cannot be told of directly (a background writer's run, a notification
/// reaching another replica), by asking `probe` again every `interval` until it answers: a fixed sleep
/// before an assertion is either too short on a loaded machine or wastes time on an idle one.
///
/// - Returns: what `probe` answered, once it answered something.
/// - Throws: ``EventuallyTimeout`` naming `what` when `timeout` passes first (the test fails with it and
///   the last answer's description), or what `probe` throws.
public func eventually<T>(
    _ what: String, timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(50),
    _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let answer = try await probe() { return answer }
        guard ContinuousClock.now < deadline else { throw EventuallyTimeout(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}

/// `eventually` for a condition: returns once `condition` holds.
public func eventually(
    _ what: String, timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws {
    let _: Bool = try await eventually(what, timeout: timeout, every: interval) { try await condition() ? true : nil }
}

/// `eventually` gave up.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration

    public var description: String { "\(what) did not happen within \(timeout)" }
}
