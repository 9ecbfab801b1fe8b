import Crypto
import Foundation
import SessionKitServer
import Testing

@testable import SessionKitBFF

/// Session cookies opened once are served from memory: only values the back end sealed, never more than the bound.
@Suite("Opened session cookies")
struct OpenedCookiesTests {
    let cookies: SessionCookies

    init() throws { cookies = try Self.makeCookies() }

    /// A back end's cookies, with a key of their own.
    static func makeCookies() throws -> SessionCookies {
        SessionCookies(
            configuration: try BackendForFrontend.Configuration(publicURL: URL(string: "http://127.0.0.1:8080")!),
            secret: SymmetricKey(size: .bits256))
    }

    /// A sealed session cookie's value, as `Set-Cookie` gives it.
    func sealedValue(_ session: SessionCookie) -> String {
        let header = cookies.setSession(session)
        let pair = header.split(separator: ";")[0]
        return String(pair[pair.index(after: pair.firstIndex(of: "=")!)...])
    }

    func session() -> SessionCookie {
        SessionCookie(id: SessionID(), createdAt: Date(), seenAt: Date(), lifetime: 3_600, idleTimeout: 600)
    }

    @Test("a value opened once is served again as it opened, and a different value is opened on its own")
    func servedAgain() {
        let first = session()
        let second = session()
        let value = sealedValue(first)
        #expect(cookies.session(value: value)?.id == first.id)
        #expect(cookies.opened.count == 1)
        #expect(cookies.session(value: value)?.id == first.id)
        #expect(cookies.opened.count == 1)
        #expect(cookies.session(value: sealedValue(second))?.id == second.id)
        #expect(cookies.opened.count == 2)
    }

    @Test("made-up, tampered and another back end's values are refused and never kept")
    func forgeriesNotKept() throws {
        let value = sealedValue(session())
        var tampered = Array(value.utf8)
        let middle = tampered.count / 2
        tampered[middle] = tampered[middle] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = try Self.makeCookies()
        let othersValue = other.setSession(session()).split(separator: ";")[0].split(separator: "=", maxSplits: 1)[1]
        var refused = [String(decoding: tampered, as: UTF8.self), String(othersValue)]
        refused += (0..<5_000).map { _ in UUID().uuidString + UUID().uuidString }
        for value in refused { #expect(cookies.session(value: value) == nil) }
        #expect(cookies.opened.count == 0)
    }

    @Test("never more than its capacity, however many sealed values arrive")
    func bounded() {
        let opened = OpenedCookies(capacity: 100)
        for _ in 0..<1_000 {
            opened.remember(session(), for: UUID().uuidString)
            #expect(opened.count <= 100)
        }
        let kept = session()
        opened.remember(kept, for: "kept")
        #expect(opened.cookie(for: "kept") == kept)
    }
}
