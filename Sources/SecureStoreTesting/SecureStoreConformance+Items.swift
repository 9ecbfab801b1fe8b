import Foundation
import SecureStore
import Testing

extension SecureStoreConformance {
    func checkRoundTrip(_ store: any SecureStore) throws {
        try store.setString("access-token-value", forKey: "access_token")
        #expect(try store.string(forKey: "access_token") == "access-token-value")
        let data = Data("refresh".utf8)
        try store.setData(data, forKey: "refresh_token")
        #expect(try store.data(forKey: "refresh_token") == data)
        #expect(try store.data(forKey: "access_token") == Data("access-token-value".utf8))
    }

    func checkMissingItemIsNil(_ store: any SecureStore) throws {
        #expect(try store.keys() == [])
        #expect(try store.data(forKey: "absent") == nil)
        #expect(try store.string(forKey: "absent") == nil)
        try store.setString("v", forKey: "present")
        #expect(try store.data(forKey: "absent") == nil)
    }

    func checkOverwrite(_ store: any SecureStore) throws {
        try store.setString("first", forKey: "k")
        try store.setString("second", forKey: "k")
        #expect(try store.string(forKey: "k") == "second")
        try store.setString("a much longer third value than the first two", forKey: "k")
        #expect(try store.string(forKey: "k") == "a much longer third value than the first two")
        #expect(try store.keys() == ["k"])
    }

    func checkDelete(_ store: any SecureStore) throws {
        try store.setString("1", forKey: "one")
        try store.setString("2", forKey: "two")
        try store.deleteItem(forKey: "one")
        #expect(try store.data(forKey: "one") == nil)
        #expect(try store.string(forKey: "two") == "2")
        try store.deleteItem(forKey: "one")
        try store.deleteItem(forKey: "never-stored")
        try store.deleteItem(forKey: "two")
        #expect(try store.keys() == [])
    }

    func checkDeleteAllIsScoped(_ store: any SecureStore, other: any SecureStore) throws {
        #expect(store.service != other.service)
        try store.setString("mine", forKey: "shared-key")
        try store.setString("mine too", forKey: "only-mine")
        try other.setString("theirs", forKey: "shared-key")
        #expect(try store.string(forKey: "shared-key") == "mine")
        #expect(try other.string(forKey: "shared-key") == "theirs")
        try store.deleteAll()
        #expect(try store.keys() == [])
        #expect(try store.data(forKey: "shared-key") == nil)
        #expect(try other.keys() == ["shared-key"])
        #expect(try other.string(forKey: "shared-key") == "theirs")
        try store.deleteAll()
        try other.deleteAll()
        #expect(try other.keys() == [])
    }

    func checkKeysAreSorted(_ store: any SecureStore) throws {
        let keys = ["b", "a", "id_token", "Z", "access_token", "é", "10", "2"]
        for key in keys {
            try store.setString(key, forKey: key)
        }
        #expect(try store.keys() == keys.sorted())
    }

    func checkHasItem(_ store: any SecureStore) throws {
        #expect(try store.hasItem(forKey: "k") == false)
        try store.setString("v", forKey: "k")
        #expect(try store.hasItem(forKey: "k"))
        #expect(try store.hasItem(forKey: "K") == false)
        try store.deleteItem(forKey: "k")
        #expect(try store.hasItem(forKey: "k") == false)
    }

    func checkUnicode(_ store: any SecureStore) throws {
        let key = "ключ 🔑 日本語"
        let value = "значение ✓ 🎉 e\u{301}"
        try store.setString(value, forKey: key)
        #expect(try store.string(forKey: key) == value)
        #expect(try store.keys() == [key])
    }

    func checkBinaryValues(_ store: any SecureStore) throws {
        let value = Data([0, 1, 0, 0, 255, 254, 0, 0x80, 0xC3, 0x28, 0])
        try store.setData(value, forKey: "binary")
        #expect(try store.data(forKey: "binary") == value)
        let allBytes = Data((0...255).map { UInt8($0) })
        try store.setData(allBytes, forKey: "all-bytes")
        #expect(try store.data(forKey: "all-bytes") == allBytes)
    }

    func checkLargeValue(_ store: any SecureStore) throws {
        var generator = SystemRandomNumberGenerator()
        let value = Data((0..<(1 << 20) + 7).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try store.setData(value, forKey: "large")
        try store.setString("small", forKey: "small")
        let readBack = try #require(try store.data(forKey: "large"))
        #expect(readBack.count == value.count)
        #expect(readBack == value)
    }

    func checkEmptyValue(_ store: any SecureStore) throws {
        try store.setData(Data(), forKey: "empty")
        #expect(try store.data(forKey: "empty") == Data())
        #expect(try store.string(forKey: "empty") == "")
        #expect(try store.hasItem(forKey: "empty"))
        #expect(try store.keys() == ["empty"])
    }

    func checkInvalidInput(_ store: any SecureStore) throws {
        let emptyKey = #expect(throws: SecureStoreError.self) { try store.setString("v", forKey: "") }
        #expect(emptyKey?.code == .invalidArgument)
        let emptyRead = #expect(throws: SecureStoreError.self) { try store.data(forKey: "") }
        #expect(emptyRead?.code == .invalidArgument)
        try store.setData(Data([0xFF, 0xFE, 0xC3]), forKey: "not-utf8")
        let notString = #expect(throws: SecureStoreError.self) { try store.string(forKey: "not-utf8") }
        #expect(notString?.code == .corrupted)
        #expect(notString.map { "\($0)".contains("not-utf8") } == true)
    }
}
