import Foundation
import Testing

@testable import SessionKit

/// What a response's `Date` proves about the provider's clock: its second was written between the request's sending
/// and the answer's arrival, so only a skew outside that window is learned, and a slow answer teaches nothing.
@Suite("The provider's clock offset, from its Date header")
struct ClockOffsetTests {
    private func provider() throws -> ProviderClient {
        ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: URL(string: "https://idp.example.com/")!, clientID: "app"))
    }

    private func answer(dated date: Date) -> HTTPResponse {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return HTTPResponse(status: 200, headers: [("Date", formatter.string(from: date))])
    }

    private let sent = Date(timeIntervalSince1970: 1_800_000_000)

    /// The offset a fresh client learns from an answer dated `dated` seconds after the request was sent and
    /// received `received` seconds after it.
    private func learned(dated: TimeInterval, received: TimeInterval) async throws -> TimeInterval {
        let client = try provider()
        client.learnClockOffset(
            from: answer(dated: sent.addingTimeInterval(dated)), sentAt: sent,
            receivedAt: sent.addingTimeInterval(received))
        return await client.serverClockOffset
    }

    @Test("an answer that took 5 s, dated 4 s after the request, proves no skew: the offset stays 0")
    func slowAnswer() async throws {
        #expect(try await learned(dated: 4, received: 5) == 0)
    }

    @Test("a provider two hours ahead, or behind, is learned by the bound nearest zero")
    func realSkew() async throws {
        #expect(try await learned(dated: 7200, received: 3) == 7197)
        #expect(try await learned(dated: -7200, received: 3) == -7199)
    }

    @Test("a skew within 2 s is not corrected")
    func smallSkew() async throws {
        #expect(try await learned(dated: 2.5, received: 0.1) == 0)
    }
}
