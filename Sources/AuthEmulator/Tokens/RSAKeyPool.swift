import CryptoExtras
import Synchronization

/// RSA signing keys a test process may share between its emulators. Off unless ``enable(size:)`` is called.
///
/// A 2048-bit RSA key is the costliest thing an emulator makes: its prime search ran in a third of the main test
/// run's CPU samples (a debug build's BoringSSL, hundreds of emulators in one process), and it ran first in every
/// test, so for the first 20 s of a CI run no test finished. With the pool on, RS256 keys come from `size` keys made
/// on first use and handed out in turn. Each key still gets its own `kid`, and a key ring never receives material
/// it already holds: a rotation, or a token signed by an unpublished key, stays what it claims to be. The
/// `sessionkit-emulator` program never turns it on.
package enum RSAKeyPool {
    private struct State {
        var size = 0
        var keys: [Int: String] = [:]
        var next = 0
    }

    private static let state = Mutex(State())

    /// Shares RSA keys among this process's emulators from now on, `size` of them (at least 2).
    package static func enable(size: Int) {
        state.withLock { $0.size = max($0.size, size, 2) }
    }

    /// A private key in PEM that is not one of `held`: from the pool when it is on, else freshly generated.
    static func privateKeyPEM(avoiding held: Set<String>) throws -> String {
        let size = state.withLock { $0.size }
        for _ in 0..<size {
            let (slot, made): (Int, String?) = state.withLock { state in
                let slot = state.next % state.size
                state.next += 1
                return (slot, state.keys[slot])
            }
            if let made {
                if held.contains(made) { continue }
                return made
            }
            let pem = try fresh()
            // Another emulator may have filled the slot meanwhile; the first key stored is the slot's key.
            let kept = state.withLock { state in
                if let first = state.keys[slot] { return first }
                state.keys[slot] = pem
                return pem
            }
            if !held.contains(kept) { return kept }
        }
        return try fresh()
    }

    private static func fresh() throws -> String {
        try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
    }
}
