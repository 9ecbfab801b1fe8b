// A test starts its own emulator, drives its clock and faults, ends sessions and requires pushed sign-ins
// (AuthEmulator.md).

// snippet.hide
import AuthEmulator
import Foundation
// snippet.show
// snippet.start
var configuration = AuthEmulator.Configuration(testControlsEnabled: true)
configuration.autoSignInUser = AuthEmulator.User.aliceEmail  // /authorize signs Alice in without a form
let emulator = try await AuthEmulator.start(configuration: configuration)
print(emulator.summary)
// … point the client at emulator.issuer …
try await emulator.controls.advanceClock(by: 86_401)  // expire the access token
try await emulator.controls.inject(.processThenDrop.only(.refreshToken).times(1), into: .token)
await emulator.stop()
// snippet.end

// snippet.hide
func backchannelLogout(on emulator: AuthEmulator, to receiverURL: URL) async throws {
    // snippet.show
    // snippet.logout
    try await emulator.controls.setBackchannelLogoutURI(receiverURL, forClient: AuthEmulator.Client.confidentialID)
    try await emulator.controls.endSessions(forUser: AuthEmulator.User.aliceID)
    let delivery = try await emulator.controls.backchannelDeliveries().last
    // snippet.hide
    _ = delivery
}

func pushedAuthorization(on emulator: AuthEmulator) async throws {
    // snippet.show
    // snippet.par
    try await emulator.controls.setPushedAuthorizationRequired(true, forClient: AuthEmulator.Client.nativeID)
    try await emulator.controls.inject(.status(400), into: .pushedAuthorization)
    // snippet.hide
}

func securityEvents(on emulator: AuthEmulator, to receiverURL: URL) async throws {
    // snippet.show
    // snippet.security-events
    try await emulator.controls.setSecurityEventReceiver(receiverURL, forClient: AuthEmulator.Client.confidentialID)
    let deliveries = try await emulator.controls.sendSecurityEvent(
        AuthEmulator.SecurityEventType.sessionRevoked, subject: AuthEmulator.User.aliceID,
        toClient: AuthEmulator.Client.confidentialID, fault: .duplicate)
    // snippet.hide
    _ = deliveries
}

func backchannelAuthentication(on emulator: AuthEmulator) async throws {
    // snippet.show
    // snippet.ciba
    try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
    // snippet.hide
}
