package import Foundation
package import SecureStore

/// A model of the Apple keychain's documented semantics for generic passwords, behind ``KeychainStore``'s
/// backend seam, so that the store's logic runs on Linux: not a keychain, and no evidence about the Security
/// framework binding itself.
///
/// What it models, from Apple's documentation of `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and
/// `SecItemDelete`:
/// - items are identified by service, account, access group and the synchronizable flag; adding one that
///   exists is `errSecDuplicateItem`, updating or deleting none is `errSecItemNotFound`;
/// - a query without an access group searches every group of the app's entitlements and adds to the first;
///   a group outside them is `errSecMissingEntitlement`;
/// - a query without `kSecAttrSynchronizable` matches only items that do not sync;
/// - the device's lock state: before the first unlock since boot no item is readable or writable; while
///   locked afterwards only the `AfterFirstUnlock` classes are; otherwise `errSecInteractionNotAllowed`;
/// - each call is atomic, also across processes, and nothing spans two calls: its state is one file in a
///   folder, changed under a lock, so several processes (an app and its extensions) can share it.
///
/// What only an Apple run proves: that the binding builds these queries into the right `kSec…` dictionaries,
/// the real error codes for each case, access control lists and biometry, and iCloud sync.
package final class KeychainModel: KeychainBackend {
    /// The device's lock state, shared by every process using the model's folder.
    package enum DeviceState: String, Codable, Sendable {
        /// Booted and not unlocked since: nothing is accessible.
        case beforeFirstUnlock
        /// Locked after a first unlock: `AfterFirstUnlock` items are accessible.
        case locked
        /// Unlocked: everything is accessible.
        case unlocked
    }

    private struct Item: Codable {
        var service: String
        var account: String
        var accessGroup: String
        var synchronizable: Bool
        var accessibility: String
        var needsUnlockedDevice: Bool
        var data: Data
    }

    private struct State: Codable {
        var device = DeviceState.unlocked
        var items: [Item] = []
    }

    private let folder: URL
    private let accessGroups: [String]

    /// A model whose state lives in `folder` (created if needed), for an app entitled to `accessGroups`; the
    /// first is its default group.
    package init(folder: URL, accessGroups: [String] = ["TEAMID.com.example.app"]) {
        precondition(!accessGroups.isEmpty, "an app always has at least one access group")
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.folder = folder
        self.accessGroups = accessGroups
    }

    /// The device's lock state.
    package var deviceState: DeviceState {
        get { (try? withState { $0.device }) ?? .unlocked }
        set { try? withState { $0.device = newValue } }
    }

    package func copyData(matching query: KeychainQuery) -> Result<Data, KeychainStatus> {
        call { state throws(KeychainStatus) in
            let found = try self.matches(query, in: state)
            guard let index = found.first else { throw .itemNotFound }
            try self.checkAccessible(state.items[index].needsUnlockedDevice, state)
            return state.items[index].data
        }
    }

    package func copyAccounts(matching query: KeychainQuery) -> Result<[String], KeychainStatus> {
        call { state throws(KeychainStatus) in
            let found = try self.matches(query, in: state)
            guard !found.isEmpty else { throw .itemNotFound }
            for index in found { try self.checkAccessible(state.items[index].needsUnlockedDevice, state) }
            return found.map { state.items[$0].account }
        }
    }

    package func add(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility)
        -> KeychainStatus
    {
        status {
            state throws(KeychainStatus) in
            guard let account = query.account else { throw .invalidParameter }
            let group = query.accessGroup ?? self.accessGroups[0]
            guard self.accessGroups.contains(group) else { throw .missingEntitlement }
            try self.checkAccessible(accessibility.needsUnlockedDevice, state)
            let exists = state.items.contains {
                $0.service == query.service && $0.account == account && $0.accessGroup == group
                    && $0.synchronizable == query.synchronizable
            }
            guard !exists else { throw .duplicateItem }
            state.items.append(
                Item(
                    service: query.service, account: account, accessGroup: group,
                    synchronizable: query.synchronizable, accessibility: accessibility.description,
                    needsUnlockedDevice: accessibility.needsUnlockedDevice, data: data))
        }
    }

    package func update(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility)
        -> KeychainStatus
    {
        status {
            state throws(KeychainStatus) in
            let found = try self.matches(query, in: state)
            guard !found.isEmpty else { throw .itemNotFound }
            try self.checkAccessible(accessibility.needsUnlockedDevice, state)
            for index in found {
                try self.checkAccessible(state.items[index].needsUnlockedDevice, state)
                state.items[index].data = data
                state.items[index].accessibility = accessibility.description
                state.items[index].needsUnlockedDevice = accessibility.needsUnlockedDevice
            }
        }
    }

    package func delete(_ query: KeychainQuery) -> KeychainStatus {
        status {
            state throws(KeychainStatus) in
            let found = try self.matches(query, in: state)
            guard !found.isEmpty else { throw .itemNotFound }
            for index in found { try self.checkAccessible(state.items[index].needsUnlockedDevice, state) }
            state.items = state.items.enumerated().filter { !found.contains($0.offset) }.map(\.element)
        }
    }

    package func message(for status: KeychainStatus) -> String? { "the keychain model says \(status)" }

    /// The accessibility an item was written with, for tests; `nil` when there is no such item.
    package func accessibility(ofAccount account: String, service: String) -> String? {
        try? withState { state in
            state.items.first { $0.service == service && $0.account == account }?.accessibility
        }
    }

    /// The access group an item was written to, for tests; `nil` when there is no such item.
    package func accessGroup(ofAccount account: String, service: String) -> String? {
        try? withState { state in
            state.items.first { $0.service == service && $0.account == account }?.accessGroup
        }
    }

    private func matches(_ query: KeychainQuery, in state: State) throws(KeychainStatus) -> [Int] {
        if let group = query.accessGroup, !accessGroups.contains(group) { throw .missingEntitlement }
        return state.items.indices.filter { index in
            let item = state.items[index]
            return item.service == query.service && (query.account.map { $0 == item.account } ?? true)
                && (query.accessGroup.map { $0 == item.accessGroup } ?? accessGroups.contains(item.accessGroup))
                && item.synchronizable == query.synchronizable
        }
    }

    private func checkAccessible(_ needsUnlockedDevice: Bool, _ state: State) throws(KeychainStatus) {
        switch state.device {
        case .unlocked: return
        case .locked where !needsUnlockedDevice: return
        case .locked, .beforeFirstUnlock: throw .interactionNotAllowed
        }
    }

    private func call<T>(_ body: (inout State) throws(KeychainStatus) -> T) -> Result<T, KeychainStatus> {
        do {
            return .success(try withState(body))
        } catch let status as KeychainStatus {
            return .failure(status)
        } catch {
            return .failure(.other(-1))
        }
    }

    private func status(_ body: (inout State) throws(KeychainStatus) -> Void) -> KeychainStatus {
        switch call(body) {
        case .success: .success
        case .failure(let status): status
        }
    }

    /// Runs `body` on the state under the model's lock, and saves the state when `body` returns.
    private func withState<T>(_ body: (inout State) throws(KeychainStatus) -> T) throws -> T {
        let lock = try FileLock.acquire(path: folder.appendingPathComponent("model.lock").path, timeout: .seconds(10))
        defer { lock.unlock() }
        let file = folder.appendingPathComponent("keychain.json")
        var state = State()
        if let data = try? Data(contentsOf: file) { state = try JSONDecoder().decode(State.self, from: data) }
        let result = try body(&state)
        try JSONEncoder().encode(state).write(to: file, options: .atomic)
        return result
    }
}
