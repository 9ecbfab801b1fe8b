// securestore-tool: the EncryptedFileStore on the command line, so SecureStoreTests can drive it from
// several processes at once and kill it mid-write. Not a product; for tests only.
//
// Usage: securestore-tool [--umask OCTAL] FOLDER SERVICE COMMAND [ARGUMENTS]
//   The key is the default key file FOLDER/store.key (created if missing).
//   set KEY VALUE                          store VALUE under KEY
//   increment-loop COUNT PREFIX COUNTER    COUNT times: update key PREFIX-i to "i", then add 1 to COUNTER
//   write-loop KEY START                   write payload(n) under KEY for n = START, START+1, ... until killed
//   select POLICY REPORT [TIMEOUT_MS]      open the store with StoreSelection (auto|keyring|file), keyring
//                                          timeout TIMEOUT_MS; write the backend description (or the error)
//                                          to the file REPORT; exit 3 when the store is unavailable
// payload(n) is "n:" followed by 16384 copies of the last decimal digit of n.
// Exit status: 0 done, 64 bad usage, 1 store error (its description on standard error), 3 unavailable (select).

import Foundation
import SecureStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("securestore-tool: \(message)\n".utf8))
    exit(status)
}

func payload(_ n: Int) -> Data {
    Data(("\(n):" + String(repeating: String(n % 10), count: 16384)).utf8)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--umask", arguments.count > 1, let mask = mode_t(arguments[1], radix: 8) {
    umask(mask)
    arguments.removeFirst(2)
}
guard arguments.count >= 3 else { fail("usage: [--umask OCTAL] FOLDER SERVICE COMMAND [ARGUMENTS]", status: 64) }
let (folder, service, command, rest) = (arguments[0], arguments[1], arguments[2], Array(arguments.dropFirst(3)))

if command == "select" {
    guard rest.count >= 2, let policy = StoreSelection.Policy(rawValue: rest[0]) else {
        fail("usage: FOLDER SERVICE select auto|keyring|file REPORT [TIMEOUT_MS]", status: 64)
    }
    let timeout = rest.count > 2 ? Duration.milliseconds(Int(rest[2]) ?? 5000) : .seconds(5)
    let report: String
    let status: Int32
    do {
        let selection = try StoreSelection.make(
            service: service, folder: folder, policy: policy, keyring: .init(timeout: timeout))
        try selection.store.setString("written", forKey: "probe")
        (report, status) = (selection.backendDescription, 0)
    } catch {
        (report, status) = ("\(error)", error.code == .unavailable ? 3 : 1)
    }
    _ = FileManager.default.createFile(atPath: rest[1], contents: Data(report.utf8))
    exit(status)
}

do {
    // A long lock timeout: the tests run several writers at once on a busy 2-core machine.
    let store = try EncryptedFileStore(
        service: service,
        configuration: .init(folder: folder, lockTimeout: .seconds(30))
    )
    switch (command, rest.count) {
    case ("set", 2):
        try store.setString(rest[1], forKey: rest[0])
    case ("increment-loop", 3):
        guard let count = Int(rest[0]) else { fail("COUNT must be a number", status: 64) }
        for index in 0..<count {
            try store.update(forKey: "\(rest[1])-\(index)") { _ in Data(String(index).utf8) }
            try store.update(forKey: rest[2]) { old in
                let value = old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                return Data(String(value + 1).utf8)
            }
        }
    case ("write-loop", 2):
        guard var n = Int(rest[1]) else { fail("START must be a number", status: 64) }
        while true {
            try store.setData(payload(n), forKey: rest[0])
            n += 1
        }
    default:
        fail("unknown command or wrong argument count: \(command)", status: 64)
    }
} catch {
    fail("\(error)", status: 1)
}
