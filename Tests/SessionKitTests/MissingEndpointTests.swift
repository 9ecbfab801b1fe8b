import Foundation
import SessionKit
import Testing

/// An endpoint that discovery lacks and no override supplies: the error keeps the library's advice for library users
/// and names the endpoint as a value, for a program (sessionctl) to name its own setting.
@Suite("A missing endpoint, named in the error as a value")
struct MissingEndpointTests {
    @Test("revocation and userinfo, absent from discovery: invalidConfiguration with missingEndpoint set")
    func missing() async throws {
        let client = try ProviderTextTests.ScriptedProvider().client
        let revocation = try await #require(throws: SessionKitError.self) { try await client.revoke(Secret("r")) }
        #expect(revocation.code == .invalidConfiguration && revocation.missingEndpoint == .revocation)
        #expect(revocation.message.contains("set EndpointOverrides.revocation to its URL"), "\(revocation.message)")
        let userInfo = try await #require(throws: SessionKitError.self) {
            _ = try await client.userInfo(accessToken: Secret("a"))
        }
        #expect(userInfo.missingEndpoint == .userInfo && userInfo.message.contains("EndpointOverrides.userInfo"))
        #expect(ProviderEndpoint.deviceAuthorization.name == "device-authorization")
        #expect("\(ProviderEndpoint.deviceAuthorization)" == "deviceAuthorization")
    }

    @Test("an error that is not about a missing endpoint has none")
    func other() async throws {
        let error = try await #require(throws: SessionKitError.self) {
            _ = try await ProviderTextTests.ScriptedProvider().client.signIn(username: "a", password: Secret("p"))
        }
        #expect(error.missingEndpoint == nil)
    }
}
