public import Foundation
public import SecureStore
import Testing

/// The behaviour every ``SecureStore`` and ``SecureStore/AsyncSecureStore`` backend must show, as Swift Testing
/// checks.
///
/// Give it a factory that returns stores for different services over **one shared backing** (one folder,
/// one keychain, one `MemoryStore.Backing`), then run every check, ideally as a parameterized test so each
/// one reports on its own:
///
/// ```swift
/// @Test(arguments: SecureStoreConformance.Check.allCases)
/// func conformance(_ check: SecureStoreConformance.Check) async throws {
///     let backing = MemoryStore.Backing()
///     try await SecureStoreConformance { MemoryStore(service: $0, backing: backing) }.run(check)
/// }
/// ```
///
/// Each check uses fresh, unique service names, so checks may run in parallel over one backing, and
/// removes its items when it passes.
public struct SecureStoreConformance: Sendable {
    /// Makes a store for `service` over the backing under test.
    public typealias Factory = @Sendable (_ service: String) throws -> any SecureStore
    /// Makes an asynchronous store for `service` over the backing under test.
    public typealias AsyncFactory = @Sendable (_ service: String) async throws -> any AsyncSecureStore

    /// One behaviour of the ``SecureStore`` contract.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Strings and data read back as written.
        case roundTrip
        /// A missing item reads as `nil`; a fresh service has no keys.
        case missingItemIsNil
        /// Writing a key again replaces its value.
        case overwrite
        /// Deleting removes an item; deleting a missing item is not an error.
        case delete
        /// `deleteAll()` removes this service's items and leaves another service's alone.
        case deleteAllIsScoped
        /// `keys()` lists this service's keys, sorted.
        case keysAreSorted
        /// `hasItem(forKey:)` tells stored keys from missing ones.
        case hasItem
        /// Keys and values outside ASCII round-trip.
        case unicode
        /// Binary values with NUL bytes round-trip.
        case binaryValues
        /// A value of more than 1 MiB round-trips.
        case largeValue
        /// An empty value is stored as empty data, not as a missing item.
        case emptyValue
        /// An empty key is rejected with `invalidArgument`; a non-UTF-8 value read as a string is `corrupted`.
        case invalidInput
        /// `update` creates, changes and returns the stored value.
        case update
        /// An error thrown by the transform propagates and leaves the item unchanged.
        case updateErrorLeavesItem
        /// A transform that returns `nil` deletes the item.
        case updateReturningNilDeletes
        /// Many concurrent tasks incrementing one counter with `update` lose no increment.
        case concurrentUpdates
        /// Stored values as SessionKit has written them over its history (``storedValues``) come back
        /// byte-identical: read, read by a new store object, and through an `update` that keeps them.
        case storedFormats

        /// The check's name.
        public var description: String { rawValue }
    }

    let makeStore: AsyncFactory
    /// The values ``Check/storedFormats`` stores, by name: ``currentRecord`` unless ``storing(_:)`` gives others.
    public internal(set) var storedValues: [String: Data] = ["current-record": Self.currentRecord]

    /// Creates the suite over `makeStore`, which returns stores for different services over one backing. The
    /// checks run through ``SecureStore/SynchronousStoreAdapter``, which calls the store's own methods.
    public init(makeStore: @escaping Factory) {
        self.makeStore = { service in SynchronousStoreAdapter(try makeStore(service)) }
    }

    /// Creates the suite over `makeStore`, which returns asynchronous stores (a server's) for different services
    /// over one backing.
    public init(makeAsyncStore: @escaping AsyncFactory) {
        self.makeStore = makeAsyncStore
    }

    /// Runs every check in turn.
    public func runAll() async throws {
        for check in Check.allCases {
            try await run(check)
        }
    }

    /// Runs one check, recording failures as Swift Testing issues.
    public func run(_ check: Check) async throws {
        let service = "conformance.\(check.rawValue).\(UUID().uuidString)"
        let store = try await makeStore(service)
        #expect(store.service == service)
        switch check {
        case .roundTrip: try await checkRoundTrip(store)
        case .missingItemIsNil: try await checkMissingItemIsNil(store)
        case .overwrite: try await checkOverwrite(store)
        case .delete: try await checkDelete(store)
        case .deleteAllIsScoped: try await checkDeleteAllIsScoped(store, other: makeStore(service + ".other"))
        case .keysAreSorted: try await checkKeysAreSorted(store)
        case .hasItem: try await checkHasItem(store)
        case .unicode: try await checkUnicode(store)
        case .binaryValues: try await checkBinaryValues(store)
        case .largeValue: try await checkLargeValue(store)
        case .emptyValue: try await checkEmptyValue(store)
        case .invalidInput: try await checkInvalidInput(store)
        case .update: try await checkUpdate(store)
        case .updateErrorLeavesItem: try await checkUpdateErrorLeavesItem(store)
        case .updateReturningNilDeletes: try await checkUpdateReturningNilDeletes(store)
        case .concurrentUpdates: try await checkConcurrentUpdates(store)
        case .storedFormats: try await checkStoredFormats(store, service: service)
        }
        try await store.deleteAll()
        #expect(try await store.keys().isEmpty)
    }
}
