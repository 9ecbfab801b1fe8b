import AuthEmulator
import Foundation
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// Where a finished sign-in may send the browser (``ReturnPath``): a path on this site, never another site.
@Suite("Router: where a sign-in returns")
struct ReturnPathRouterTests {
    /// `/auth/login` with `return_to` set to `target`, percent-encoded as a browser would.
    static func login(returnTo target: String) -> String {
        var login = URLComponents(string: "/auth/login")!
        login.queryItems = [URLQueryItem(name: "return_to", value: target)]
        return login.string!
    }

    @Test(
        "return_to must be a path on this site of at most 512 bytes: refused before anything starts",
        arguments: [
            "https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "evil", "/a b",
            "/caf\u{E9}", "/a\u{7F}", "/" + String(repeating: "x", count: 512),
        ])
    func refused(target: String) async throws {
        try await RouterBFF.test { app in
            let page = try await app.browser().get(Self.login(returnTo: target))
            #expect(page.status == 400)
            #expect(page.location == nil)
            #expect(page.json["error"] as? String == "invalid_return_to")
            #expect(page.setCookies.isEmpty, "no sign-in cookie")
            #expect(try app.storedItems() == 0, "no sign-in was started")
        }
    }

    @Test("a path on this site, query and fragment included, up to 512 bytes, is where the callback lands")
    func accepted() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                for target in ["/orders?x=1#top", "/", "/" + String(repeating: "x", count: 511)] {
                    let landed = try await app.browser().signIn(returnTo: target)
                    #expect(landed.status == 303)
                    #expect(landed.location == target)
                }
                let plain = try await app.browser().signIn()
                #expect(plain.status == 303 && plain.location == "/", "without return_to: the site's root")
            }
        }
    }

    @Test("ReturnPath alone: the same rule, byte for byte")
    func rule() {
        for accepted in ["/", "/orders", "/orders?x=1#top", "/a/b/../c", "/" + String(repeating: "x", count: 511)] {
            #expect(ReturnPath.validated(accepted) == accepted, "\(accepted)")
        }
        for refused in ["", "orders", "//evil.example", "/\\evil", "/a\tb", "/a\u{0}", "/\u{E9}", "https://x/"] {
            #expect(ReturnPath.validated(refused) == nil, "\(refused)")
        }
        #expect(ReturnPath.validated("/" + String(repeating: "x", count: ReturnPath.maximumLength)) == nil)
    }
}
