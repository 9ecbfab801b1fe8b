import Synchronization
import Testing

@testable import SessionKitPostgres

/// ``CommitWatch`` alone: which waits it answers "committed", and that it never answers so without an
/// announcement of the very generation written.
@Suite("CommitWatch: a write confirmed by its own announcement, or else by a statement")
struct CommitWatchTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test("no listener up: no ticket, so the writer confirms with a statement")
    func noListener() {
        let watch = CommitWatch()
        #expect(watch.expect(digest: Self.digest) == nil)
        watch.listenerStarted()
        watch.listenerEnded()
        #expect(watch.expect(digest: Self.digest) == nil)
    }

    @Test("the announcement before the wait, or during it: committed; another generation or key: not")
    func announced() async throws {
        let watch = CommitWatch(patience: .seconds(60))
        watch.listenerStarted()
        let first = try #require(watch.expect(digest: Self.digest))
        watch.announced(digest: Self.digest, generation: 7)
        #expect(await watch.committed(first, generation: 7))
        watch.finish(first)

        let late = try #require(watch.expect(digest: Self.digest))
        let answered = Flag()
        let waiting = Task {
            let committed = await watch.committed(late, generation: 8)
            answered.value.store(true, ordering: .relaxed)
            return committed
        }
        try await Task.sleep(for: .milliseconds(50))  // waiting by now (if not, the checks below still hold)
        watch.announced(digest: String(repeating: "cd", count: 32), generation: 8)
        watch.announced(digest: Self.digest, generation: 9)
        try await Task.sleep(for: .milliseconds(50))
        let early = answered.value.load(ordering: .relaxed)
        #expect(!early, "answered before its own generation was announced")
        watch.announced(digest: Self.digest, generation: 8)
        #expect(await waiting.value)
        watch.finish(late)
        #expect(watch.watchedKeyCount == 0, "a finished ticket leaves nothing behind")
    }

    @Test("a listener that ends while a writer waits, or since its ticket was taken: not known, ask PostgreSQL")
    func listenerEnded() async throws {
        let watch = CommitWatch(patience: .seconds(60))
        watch.listenerStarted()
        let waitingTicket = try #require(watch.expect(digest: Self.digest))
        let waiting = Task { await watch.committed(waitingTicket, generation: 1) }
        try await Task.sleep(for: .milliseconds(50))
        watch.listenerEnded()
        #expect(await waiting.value == false)

        // Taken under a listener that ended before the wait; a newer one may have started after the commit.
        watch.listenerStarted()
        let stale = try #require(watch.expect(digest: Self.digest))
        watch.listenerEnded()
        watch.listenerStarted()
        #expect(await watch.committed(stale, generation: 2) == false)
        watch.finish(waitingTicket)
        watch.finish(stale)
        #expect(watch.watchedKeyCount == 0)
    }

    @Test(
        "no announcement within the patience, or the patience ran out before the wait: not known, ask PostgreSQL")
    func patience() async throws {
        let watch = CommitWatch(patience: .milliseconds(30))
        watch.listenerStarted()
        let ticket = try #require(watch.expect(digest: Self.digest))
        #expect(await watch.committed(ticket, generation: 1) == false)
        watch.finish(ticket)
        // The patience running out between its start and the wait (a thread held up on a loaded machine): the
        // writer is not left waiting for an announcement.
        let patient = CommitWatch(patience: .seconds(3600))
        patient.listenerStarted()
        let late = try #require(patient.expect(digest: Self.digest))
        patient.giveUp(late)
        // Were it left waiting, ending the listener after 10 s releases it, and the time tells.
        let release = Task {
            try await Task.sleep(for: .seconds(10))
            patient.listenerEnded()
        }
        let started = ContinuousClock.now
        #expect(await patient.committed(late, generation: 1) == false)
        #expect(ContinuousClock.now - started < .seconds(9), "it waited for an announcement after its patience")
        release.cancel()
        patient.finish(late)
        #expect(patient.watchedKeyCount == 0)
    }
}

/// Set once by a task, read by the test.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
