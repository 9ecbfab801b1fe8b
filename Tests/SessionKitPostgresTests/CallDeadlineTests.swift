import Testing

@testable import SessionKitPostgres

/// The deadline of a store call: the caller is answered in time, the work goes on without it.
@Suite("Call deadline")
struct CallDeadlineTests {
    @Test("work that ends in time gives its result, thrown errors included")
    func inTime() async throws {
        let value = CallDeadline { 42 }
        #expect(try await value.result(within: .seconds(10))?.get() == 42)
        struct Refused: Error {}
        let failing = CallDeadline<Int> { throw Refused() }
        let result = await failing.result(within: .seconds(10))
        #expect(throws: Refused.self) { try result?.get() }
    }

    @Test("work past the limit answers nil at the limit, goes on, and a second wait gets its result")
    func late() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let work = CallDeadline<String> {
            for await _ in gate.stream { return "done" }
            return "ended"
        }
        let clock = ContinuousClock()
        var first: Result<String, any Error>?
        let waited = await clock.measure { first = await work.result(within: .milliseconds(50)) }
        #expect(first == nil)
        #expect(waited >= .milliseconds(50) && waited < .seconds(10))
        gate.continuation.yield()
        #expect(try await work.result(within: .seconds(10))?.get() == "done")
        // Finished: asked again, the result comes at once, even with no time left.
        #expect(try await work.result(within: .zero)?.get() == "done")
    }

    @Test("a caller cancelled while it waits cancels the work and gets its result")
    func cancelled() async throws {
        let work = CallDeadline<String> {
            try await Task.sleep(for: .seconds(60))
            return "slept"
        }
        let caller = Task { await work.result(within: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(20))
        caller.cancel()
        let result = await caller.value
        #expect(throws: CancellationError.self) { try result?.get() }
    }
}
