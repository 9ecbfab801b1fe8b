import Foundation
import JWTKit
import SessionKitSupport

/// The emulator's key ring: one current signing key plus retired keys still published during the overlap.
///
/// Rotation makes a new key current at once; the old one keeps verifying (and stays in the JWKS) for
/// `overlap` seconds of the emulator clock, so tokens signed just before a rotation remain valid.
actor SigningKeys {
    private let algorithm: AuthEmulator.SigningAlgorithm
    private let overlap: Double
    private var keys: [SigningKey]
    private let collection = JWTKeyCollection()

    /// Creates the ring from saved keys, or with a fresh key when there are none.
    init(algorithm: AuthEmulator.SigningAlgorithm, overlap: Double, saved: [SigningKey], now: Date) async throws {
        self.algorithm = algorithm
        self.overlap = overlap
        let usable = saved.filter { $0.algorithm == algorithm }
        self.keys = usable.isEmpty ? [try SigningKey.generate(algorithm, now: now)] : usable
        for key in keys {
            try await key.add(to: collection)
        }
    }

    /// The `kid` of the key that signs new tokens.
    var currentKID: String { keys[keys.count - 1].kid }

    /// Every key, for the state file.
    var all: [SigningKey] { keys }

    /// Signs `payload` with the current key; the header carries its `kid` unless `withKeyID` is `false`, and
    /// `header`'s other fields (a `typ` such as `logout+jwt`).
    func sign(_ payload: some JWTPayload, withKeyID: Bool = true, header: JWTHeader = JWTHeader()) async throws
        -> String
    {
        guard withKeyID else {
            let single = JWTKeyCollection()
            try await keys[keys.count - 1].add(to: single, withKeyID: false)
            return try await single.sign(payload, header: header)
        }
        return try await collection.sign(payload, kid: JWKIdentifier(string: currentKID), header: header)
    }

    /// Signs `payload` with a fresh key that is published nowhere, under the current key's `kid`: a token whose
    /// header looks right and whose signature no published key verifies.
    func signWithUnpublishedKey(_ payload: some JWTPayload, header: JWTHeader = JWTHeader()) async throws -> String {
        var impostor = try SigningKey.generate(algorithm, now: Date(), avoiding: keys)
        impostor.kid = currentKID
        let single = JWTKeyCollection()
        try await impostor.add(to: single)
        return try await single.sign(payload, kid: JWKIdentifier(string: currentKID), header: header)
    }

    /// Verifies a token's signature against any published key and decodes its payload.
    /// Expiry is not checked here: callers check it against the emulator clock.
    func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type, now: Date) async throws -> Payload {
        await prune(now: now)
        return try await collection.verify(token, as: type)
    }

    /// The public JWKS: the current key and retired keys still inside the overlap.
    func jwks(now: Date) async throws -> [String: JSONValue] {
        await prune(now: now)
        return ["keys": .array(try keys.map { .object(try $0.publicJWK()) })]
    }

    /// Makes a new key current and retires the old one; returns the new `kid`.
    @discardableResult
    func rotate(now: Date) async throws -> String {
        let key = try SigningKey.generate(algorithm, now: now, avoiding: keys)
        for index in keys.indices where keys[index].retiredAt == nil {
            keys[index].retiredAt = now
        }
        keys.append(key)
        try await key.add(to: collection)
        await prune(now: now)
        return key.kid
    }

    private func prune(now: Date) async {
        let expired = keys.filter { key in
            guard let retiredAt = key.retiredAt else { return false }
            return now.timeIntervalSince(retiredAt) > overlap
        }
        guard !expired.isEmpty else { return }
        keys.removeAll { key in expired.contains { $0.kid == key.kid } }
        for key in expired {
            _ = await collection.remove(kid: JWKIdentifier(string: key.kid))
        }
    }
}
