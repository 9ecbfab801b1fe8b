import HTTPTypes
import NIOHTTP1
import Testing

@testable import SessionKitBFF

/// What of the upstream's answer reaches the browser, and what of the browser's request reaches the upstream.
@Suite("Hop-by-hop headers")
struct HopByHopHeadersTests {
    @Test("downstream: hop-by-hop, withheld, CORS and Connection-listed headers go; the hardening is set once")
    func downstream() {
        let upstream = HTTPHeaders([
            ("Content-Type", "application/json"), ("Connection", "keep-alive"), ("Keep-Alive", "timeout=5"),
            ("Connection", " X-Hop ,\tx-other-HOP,"), ("X-Hop", "1"), ("X-OTHER-hop", "2"), ("Set-Cookie", "a=b"),
            ("Cache-Control", "public, max-age=60"), ("Access-Control-Allow-Origin", "*"), ("X-Kept", "yes"),
            ("Bad Name", "dropped"), ("Content-Length", "12"),
        ])
        let fields = HopByHopHeaders.downstream(upstream)
        let names = fields.map(\.name.canonicalName)
        #expect(
            names == [
                "content-type", "x-kept", "cache-control", "x-content-type-options", "content-security-policy",
            ])
        #expect(fields[.cacheControl] == "private, no-store")
        #expect(fields[values: .cacheControl].count == 1)
    }

    @Test("downstream: an answer that lists only known names in Connection keeps its other headers")
    func knownConnectionNames() {
        let fields = HopByHopHeaders.downstream(HTTPHeaders([("Connection", "close"), ("Server", "nginx")]))
        #expect(
            fields.map(\.name.canonicalName) == [
                "server", "cache-control", "x-content-type-options",
                "content-security-policy",
            ])
    }

    @Test("upstream: the cookie, authorization and the names Connection lists are not sent")
    func upstream() {
        var fields = HTTPFields()
        fields[.cookie] = "sessionkit=secret"
        fields[.authorization] = "Bearer browser"
        fields[.connection] = "X-Private , keep-alive"
        fields[HTTPField.Name("X-Private")!] = "hop"
        fields[HTTPField.Name("X-CSRF")!] = "1"
        fields[.accept] = "application/json"
        let headers = HopByHopHeaders.upstream(
            fields, removing: HopByHopHeaders.removedUpstream.union(["x-csrf"]))
        #expect(headers.map(\.name) == ["Accept"])
    }
}
