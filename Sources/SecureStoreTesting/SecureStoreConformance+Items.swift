import Foundation
import SecureStore
import Testing

extension SecureStoreConformance {
    func checkRoundTrip(_ store: any AsyncSecureStore) async throws {
        try await store.setString("access-token-value", forKey: "access_token")
        #expect(try await store.string(forKey: "access_token") == "access-token-value")
        let data = Data("refresh".utf8)
        try await store.setData(data, forKey: "refresh_token")
        #expect(try await store.data(forKey: "refresh_token") == data)
        #expect(try await store.data(forKey: "access_token") == Data("access-token-value".utf8))
    }

    func checkMissingItemIsNil(_ store: any AsyncSecureStore) async throws {
        #expect(try await store.keys() == [])
        #expect(try await store.data(forKey: "absent") == nil)
        #expect(try await store.string(forKey: "absent") == nil)
        try await store.setString("v", forKey: "present")
        #expect(try await store.data(forKey: "absent") == nil)
    }

    func checkOverwrite(_ store: any AsyncSecureStore) async throws {
        try await store.setString("first", forKey: "k")
        try await store.setString("second", forKey: "k")
        #expect(try await store.string(forKey: "k") == "second")
        try await store.setString("a much longer third value than the first two", forKey: "k")
        #expect(try await store.string(forKey: "k") == "a much longer third value than the first two")
        #expect(try await store.keys() == ["k"])
    }

    func checkDelete(_ store: any AsyncSecureStore) async throws {
        try await store.setString("1", forKey: "one")
        try await store.setString("2", forKey: "two")
        try await store.deleteItem(forKey: "one")
        #expect(try await store.data(forKey: "one") == nil)
        #expect(try await store.string(forKey: "two") == "2")
        try await store.deleteItem(forKey: "one")
        try await store.deleteItem(forKey: "never-stored")
        try await store.deleteItem(forKey: "two")
        #expect(try await store.keys() == [])
    }

    func checkDeleteAllIsScoped(_ store: any AsyncSecureStore, other: any AsyncSecureStore) async throws {
        #expect(store.service != other.service)
        try await store.setString("mine", forKey: "shared-key")
        try await store.setString("mine too", forKey: "only-mine")
        try await other.setString("theirs", forKey: "shared-key")
        #expect(try await store.string(forKey: "shared-key") == "mine")
        #expect(try await other.string(forKey: "shared-key") == "theirs")
        try await store.deleteAll()
        #expect(try await store.keys() == [])
        #expect(try await store.data(forKey: "shared-key") == nil)
        #expect(try await other.keys() == ["shared-key"])
        #expect(try await other.string(forKey: "shared-key") == "theirs")
        try await store.deleteAll()
        try await other.deleteAll()
        #expect(try await other.keys() == [])
    }

    func checkKeysAreSorted(_ store: any AsyncSecureStore) async throws {
        let keys = ["b", "a", "id_token", "Z", "access_token", "é", "10", "2"]
        for key in keys {
            try await store.setString(key, forKey: key)
        }
        #expect(try await store.keys() == keys.sorted())
    }

    func checkHasItem(_ store: any AsyncSecureStore) async throws {
        #expect(try await store.hasItem(forKey: "k") == false)
        try await store.setString("v", forKey: "k")
        #expect(try await store.hasItem(forKey: "k"))
        #expect(try await store.hasItem(forKey: "K") == false)
        try await store.deleteItem(forKey: "k")
        #expect(try await store.hasItem(forKey: "k") == false)
    }

    func checkUnicode(_ store: any AsyncSecureStore) async throws {
        let key = "ключ 🔑 日本語"
        let value = "значение ✓ 🎉 e\u{301}"
        try await store.setString(value, forKey: key)
        #expect(try await store.string(forKey: key) == value)
        #expect(try await store.keys() == [key])
    }

    func checkBinaryValues(_ store: any AsyncSecureStore) async throws {
        let value = Data([0, 1, 0, 0, 255, 254, 0, 0x80, 0xC3, 0x28, 0])
        try await store.setData(value, forKey: "binary")
        #expect(try await store.data(forKey: "binary") == value)
        let allBytes = Data((0...255).map { UInt8($0) })
        try await store.setData(allBytes, forKey: "all-bytes")
        #expect(try await store.data(forKey: "all-bytes") == allBytes)
    }

    func checkLargeValue(_ store: any AsyncSecureStore) async throws {
        var generator = SystemRandomNumberGenerator()
        let value = Data((0..<(1 << 20) + 7).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try await store.setData(value, forKey: "large")
        try await store.setString("small", forKey: "small")
        let readBack = try #require(try await store.data(forKey: "large"))
        #expect(readBack.count == value.count)
        #expect(readBack == value)
    }

    func checkEmptyValue(_ store: any AsyncSecureStore) async throws {
        try await store.setData(Data(), forKey: "empty")
        #expect(try await store.data(forKey: "empty") == Data())
        #expect(try await store.string(forKey: "empty") == "")
        #expect(try await store.hasItem(forKey: "empty"))
        #expect(try await store.keys() == ["empty"])
    }

    func checkInvalidInput(_ store: any AsyncSecureStore) async throws {
        let emptyKey = await #expect(throws: SecureStoreError.self) { try await store.setString("v", forKey: "") }
        #expect(emptyKey?.code == .invalidArgument)
        let emptyRead = await #expect(throws: SecureStoreError.self) { try await store.data(forKey: "") }
        #expect(emptyRead?.code == .invalidArgument)
        try await store.setData(Data([0xFF, 0xFE, 0xC3]), forKey: "not-utf8")
        let notString = await #expect(throws: SecureStoreError.self) { try await store.string(forKey: "not-utf8") }
        #expect(notString?.code == .corrupted)
        #expect(notString.map { "\($0)".contains("not-utf8") } == true)
    }
}
