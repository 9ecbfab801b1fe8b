import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("Single-flight renewal")
struct ConcurrencyTests {
    @Test("1,000 concurrent callers on an expired session make exactly one token request")
    func singleFlight() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            live.expire(credentials)
            try await emulator.controls.resetRequestCounts()
            let session = live.session
            let results = try await withThrowingTaskGroup(of: Credentials.self) { group in
                for _ in 0..<1000 { group.addTask { try await session.credentials(minTTL: 30) } }
                return try await group.reduce(into: [Credentials]()) { $0.append($1) }
            }
            #expect(results.count == 1000)
            #expect(Set(results.map(\.accessToken)).count == 1, "every caller gets the one renewal's result")
            #expect(results[0].accessToken != credentials.accessToken)
            #expect(try await emulator.controls.requestCounts()[.token] == 1)
        }
    }

    @Test("two managers over one store (two app instances) renew once between them")
    func twoManagers() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            live.expire(credentials)
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.5).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            let managers = try [live.session] + (0..<3).map { _ in try live.relaunched() }
            let results = try await withThrowingTaskGroup(of: Credentials.self) { group in
                for manager in managers { group.addTask { try await manager.credentials() } }
                return try await group.reduce(into: [Credentials]()) { $0.append($1) }
            }
            #expect(Set(results.map(\.accessToken)).count == 1)
            #expect(try await emulator.controls.requestCounts()[.token] == 1)
        }
    }
}
