import Foundation
import Testing

@testable import SecureStore

@Suite("A store folder's name in a keyring: as URL standardizes it, without URL for standard paths")
struct StandardizedPathTests {
    @Test(
        "the same answer as URL(fileURLWithPath:).standardizedFileURL.path",
        arguments: [
            "/home/alice/.local/state/sessionctl", "/tmp/a b/ünï cødé", "/tmp/a%20b", "/x/.hidden", "/x/...", "/x/a.",
            "/x/..y", "/", "/x/", "/x//y", "/x/./y", "/x/../y", "/x/.", "/x/..", "relative/folder", "./here", "",
        ])
    func matchesURL(_ path: String) {
        #expect(StoreFolder.standardizedPath(path) == URL(fileURLWithPath: path).standardizedFileURL.path)
    }
}
