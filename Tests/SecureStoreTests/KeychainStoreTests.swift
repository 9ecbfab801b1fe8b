import AuthEmulator
import Foundation
import SecureStoreTesting
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

@testable import SecureStore

/// `KeychainStore`'s logic (queries, the accessibility and group it writes, statuses to errors, atomic updates)
/// on Linux, over `KeychainModel`: a model of the keychain's documented semantics, since no keychain runs here.
/// What only an Apple run proves is listed on `KeychainModel` and in README's "Known limitations".
@Suite("KeychainStore over the keychain model")
struct KeychainStoreTests {
    static let appGroup = "TEAMID.com.example.app"
    static let sharedGroup = "TEAMID.com.example.shared"

    static func model(_ folder: String) -> KeychainModel {
        KeychainModel(folder: URL(fileURLWithPath: folder + "/keychain"), accessGroups: [appGroup, sharedGroup])
    }

    @Test("the store conformance suite", arguments: SecureStoreConformance.Check.allCases)
    func conformance(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            try await SecureStoreConformance { KeychainStore(service: $0, backend: model) }.storing(fixtures).run(check)
        }
    }

    @Test("before the first unlock nothing reads as signed out: reads and writes are unavailable, and say why")
    func beforeFirstUnlock() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            let store = KeychainStore(service: "app", backend: model)
            try store.setString("tokens", forKey: "session")
            model.deviceState = .beforeFirstUnlock
            let read = storeError { _ = try store.data(forKey: "session") }
            #expect(read?.code == .unavailable)
            #expect(read?.message.contains("locked") == true && read?.message.contains("after the device") == true)
            #expect(storeError { try store.setString("new", forKey: "session") }?.code == .unavailable)
            #expect(storeError { _ = try store.keys() }?.code == .unavailable)
            #expect(storeError { try store.update(forKey: "session") { $0 } }?.code == .unavailable)
            model.deviceState = .locked
            #expect(try store.string(forKey: "session") == "tokens", "AfterFirstUnlock items read while locked")
        }
    }

    @Test("an app launched before the first unlock: a retryable error, never signed out; the session after unlock")
    func launchBeforeFirstUnlock() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let model = Self.model(folder)
                let store = KeychainStore(service: "app", backend: model)
                let provider = ProviderClient(configuration: try emulator.providerConfiguration())
                let credentials = try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                try await SessionManager(provider: provider, store: store).store(credentials)
                model.deviceState = .beforeFirstUnlock
                let launched = SessionManager(provider: provider, store: store)
                await #expect {
                    _ = try await launched.hasSession()
                } throws: { error in
                    (error as? SessionKitError)?.code == .storeUnavailable
                }
                await #expect {
                    _ = try await launched.credentials()
                } throws: { error in
                    (error as? SessionKitError)?.code.isRetryable == true
                }
                model.deviceState = .unlocked
                #expect(try await launched.credentials().accessToken == credentials.accessToken)
            }
        }
    }

    @Test("WhenUnlocked items are unavailable while the device is locked; AfterFirstUnlock ones are not")
    func lockedDevice() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            let strict = KeychainStore(service: "strict", accessibility: .whenUnlockedThisDeviceOnly, backend: model)
            let relaxed = KeychainStore(service: "relaxed", backend: model)
            try strict.setString("a", forKey: "k")
            try relaxed.setString("b", forKey: "k")
            model.deviceState = .locked
            #expect(storeError { _ = try strict.data(forKey: "k") }?.code == .unavailable)
            #expect(storeError { try strict.setString("c", forKey: "other") }?.code == .unavailable)
            #expect(try relaxed.string(forKey: "k") == "b")
            try relaxed.setString("c", forKey: "k")
            model.deviceState = .unlocked
            #expect(try strict.string(forKey: "k") == "a")
            #expect(try relaxed.string(forKey: "k") == "c")
        }
    }

    @Test("items are written with the store's accessibility, and a write moves an item to it")
    func accessibility() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            try KeychainStore(service: "app", backend: model).setString("v", forKey: "k")
            #expect(
                model.accessibility(ofAccount: "k", service: "app")
                    == "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
            try KeychainStore(service: "app", accessibility: .whenUnlocked, backend: model).setString("w", forKey: "k")
            #expect(model.accessibility(ofAccount: "k", service: "app") == "kSecAttrAccessibleWhenUnlocked")
        }
    }

    @Test("an access group: written there, seen by the app's default store, refused when not entitled")
    func accessGroups() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            let shared = KeychainStore(service: "app", accessGroup: Self.sharedGroup, backend: model)
            try shared.setString("shared", forKey: "session")
            #expect(model.accessGroup(ofAccount: "session", service: "app") == Self.sharedGroup)
            // Without a group a search covers every group of the app's entitlements (Apple's documented rule).
            #expect(try KeychainStore(service: "app", backend: model).string(forKey: "session") == "shared")
            let stranger = KeychainStore(service: "app", accessGroup: "OTHERTEAM.group", backend: model)
            let error = storeError { _ = try stranger.data(forKey: "session") }
            #expect(error?.code == .permissionDenied)
            #expect(error?.message.contains("keychain-access-groups entitlement") == true)
        }
    }

    @Test("synchronizable and device-only stores of one service do not see each other's items")
    func synchronizable() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            let local = KeychainStore(service: "app", backend: model)
            let synced = KeychainStore(service: "app", isSynchronizable: true, backend: model)
            try local.setString("local", forKey: "k")
            #expect(try synced.data(forKey: "k") == nil)
            try synced.setString("synced", forKey: "k")
            #expect(try local.string(forKey: "k") == "local")
            try synced.deleteAll()
            #expect(try local.keys() == ["k"])
        }
    }

    @Test("an item another process adds between the update and the add (errSecDuplicateItem) is overwritten")
    func duplicateItemRace() async throws {
        try await TemporaryFolder.with { folder in
            let model = Self.model(folder)
            let racing = RacingBackend(model: model)
            try KeychainStore(service: "app", backend: racing).setString("ours", forKey: "k")
            #expect(racing.raced, "the other writer came in between")
            #expect(try KeychainStore(service: "app", backend: model).string(forKey: "k") == "ours")
        }
    }

    @Test("a status the store does not know is unavailable (retryable), with the system's words")
    func unknownStatus() {
        let store = KeychainStore(service: "app", backend: FailingBackend(status: .other(-25291)))
        let error = storeError { _ = try store.data(forKey: "k") }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("reading the item 'k' failed") == true)
        #expect(storeError { _ = try store.keys() }?.code == .unavailable)
        let malformed = KeychainStore(service: "app", backend: FailingBackend(status: .invalidParameter))
        #expect(storeError { try malformed.setString("v", forKey: "k") }?.code == .invalidArgument)
    }
}

/// The model, with another writer adding the item once just before this store's first add: the race
/// between two processes that both found no item.
private final class RacingBackend: KeychainBackend {
    let model: KeychainModel
    private let first = Mutex(true)

    init(model: KeychainModel) { self.model = model }

    var raced: Bool { !first.withLock { $0 } }

    func copyData(matching query: KeychainQuery) -> Result<Data, KeychainStatus> { model.copyData(matching: query) }
    func copyAccounts(matching query: KeychainQuery) -> Result<[String], KeychainStatus> {
        model.copyAccounts(matching: query)
    }
    func add(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus {
        if first.withLock({ was in
            defer { was = false }
            return was
        }) {
            _ = model.add(query, data: Data("theirs".utf8), accessibility: accessibility)
        }
        return model.add(query, data: data, accessibility: accessibility)
    }
    func update(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus {
        model.update(query, data: data, accessibility: accessibility)
    }
    func delete(_ query: KeychainQuery) -> KeychainStatus { model.delete(query) }
    func message(for status: KeychainStatus) -> String? { model.message(for: status) }
}

/// A keychain that answers every call with one status, and has no words for it.
private struct FailingBackend: KeychainBackend {
    let status: KeychainStatus
    func copyData(matching query: KeychainQuery) -> Result<Data, KeychainStatus> { .failure(status) }
    func copyAccounts(matching query: KeychainQuery) -> Result<[String], KeychainStatus> { .failure(status) }
    func add(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus {
        status
    }
    func update(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus {
        status
    }
    func delete(_ query: KeychainQuery) -> KeychainStatus { status }
    func message(for status: KeychainStatus) -> String? { nil }
}
