// sessionkit-app-process: an app or one of its extensions, as a process of its own, sharing one session through
// KeychainStore over the keychain model (SecureStoreTesting) in a shared folder, as an app and its extensions
// share the keychain and an App Group container. Not a product; for KeychainSharingTests only.
//
// Usage: sessionkit-app-process MODEL_FOLDER LOCK_FILE|- COMMAND [ARGUMENTS]
//   LOCK_FILE is KeychainStore's crossProcessLock ("-" for none).
//   increment COUNT [START_FILE]                    COUNT times: add 1 to the item "counter" with update;
//                                                   with START_FILE, only once that file exists (so that
//                                                   several processes start their loops together)
//   credentials ISSUER CLIENT_ID LEASE_SECONDS      SessionManager.credentials(minTTL: 60) for the stored
//                                                   session; prints "ok <token digest>" or "error <code>"
// Exit status: 0 done (credentials: whatever the answer), 64 bad usage, 1 store error.
import Foundation
import SecureStore
import SecureStoreTesting
import SessionKit
import SessionKitSupport

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sessionkit-app-process: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else { fail("usage: MODEL_FOLDER LOCK_FILE|- COMMAND [ARGUMENTS]", status: 64) }
let lock = arguments[1] == "-" ? nil : URL(fileURLWithPath: arguments[1])
let store = KeychainStore(
    service: "com.example.app.session", accessGroup: "TEAMID.com.example.shared", crossProcessLock: lock,
    backend: KeychainModel(
        folder: URL(fileURLWithPath: arguments[0]),
        accessGroups: ["TEAMID.com.example.app", "TEAMID.com.example.shared"]))
let rest = Array(arguments.dropFirst(3))

switch (arguments[2], rest.count) {
case ("increment", 1), ("increment", 2):
    guard let count = Int(rest[0]) else { fail("COUNT must be a number", status: 64) }
    if rest.count == 2 {
        let started = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: rest[1]) {
            if ContinuousClock.now - started > .seconds(60) { fail("START_FILE never appeared", status: 1) }
            usleep(1_000)
        }
    }
    do {
        for _ in 0..<count {
            try store.update(forKey: "counter") { old in
                let value = old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                // Work between the read and the write, as a renewal's request is: without the lock file the other
                // processes' calls get in between.
                usleep(500)
                return Data(String(value + 1).utf8)
            }
        }
    } catch {
        fail("\(error)", status: 1)
    }
case ("credentials", 3):
    guard let issuer = URL(string: rest[0]), let lease = Int(rest[2]) else {
        fail("ISSUER must be a URL and LEASE_SECONDS a number", status: 64)
    }
    do {
        let configuration = try ProviderConfiguration(issuer: issuer, clientID: rest[1], requestTimeout: .seconds(10))
        let session = SessionManager(
            provider: ProviderClient(configuration: configuration), store: store,
            policy: RenewalPolicy(leaseDuration: .seconds(lease), waitTimeout: .seconds(lease + 20)))
        let credentials = try await session.credentials(minTTL: 60)
        print("ok " + Hex.sha256(credentials.accessToken.unsafeRawValue).prefix(16))
    } catch {
        print("error \(error.code)")
    }
default:
    fail("unknown command or wrong number of arguments: \(arguments[2])", status: 64)
}
