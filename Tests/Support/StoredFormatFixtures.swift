package import Foundation

/// The golden fixtures of every stored format SessionKit has written (`Tests/Fixtures/StoredFormats`, its README
/// names the commit of each; `docs/stored-formats.md` describes the formats).
///
/// ```swift
/// let record = try StoredFormatFixtures.data("record-7166bd7.json")
/// ```
package enum StoredFormatFixtures {
    /// The fixtures' folder in this checkout.
    package static let folder: String = {
        var path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        path.appendPathComponent("Fixtures/StoredFormats")
        return path.path
    }()

    /// The session records, one per form, by file name: the bytes a store holds.
    package static let recordNames = [
        "record-7166bd7.json", "record-8c13e80.json", "record-365df0b.json", "record-current.json",
    ]

    /// The store service the encrypted fixtures were written for.
    package static let service = "sessionkit.fixtures"
    /// The item key the session record is stored under in the encrypted fixtures: a session manager's key for
    /// the issuer `https://fixture.example/`, client `fixture-client`, account `default`.
    package static let recordKey = "sessionkit.session|https://fixture.example/|fixture-client|default"

    /// The fixtures' 256-bit test key, bytes 0 to 31: it seals the encrypted fixtures and is no one's secret.
    package static let keyBytes = Data((0..<32).map { UInt8($0) })

    /// The bytes of the fixture `name`.
    package static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
    }

    /// Every stored value among the fixtures (the records), by name: what every store backend must give back as
    /// it was put in.
    package static func storedValues() throws -> [String: Data] {
        var values: [String: Data] = [:]
        for name in recordNames { values[name] = try data(name) }
        return values
    }
}
