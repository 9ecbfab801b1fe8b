// Issue 46: the floor of the stack the back end for front ends is built on, with nothing of SessionKit's in it.
//
//     stack-floor PORT UPSTREAM-URL [NIO-PORT]
//
// Serves, on 127.0.0.1:PORT, Hummingbird's own answers that cost what its server side costs:
//   GET /static        a 1.2 KB JSON body from memory (Hummingbird alone);
//   GET /relay/<path>  UPSTREAM-URL/<path> fetched with AsyncHTTPClient and its answer passed on whole (the
//                      same two libraries the BFF forwards with, and nothing else: no cookie, no session, no token,
//                      no header filtering);
// and with NIO-PORT, on 127.0.0.1:NIO-PORT, a relay on SwiftNIO alone (NIORelay.swift): GET /nio/<path> relays
// UPSTREAM-URL/<path>, the floor below both libraries.
// `Benchmarks/bff.sh` with `FLOOR=1` runs it beside the two instances, so that the BFF's CPU per forwarded request
// is set against what the stack costs on its own, in the same run.
import AsyncHTTPClient
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let port = Int(arguments[1]) else {
    print("usage: stack-floor PORT UPSTREAM-URL [NIO-PORT]")
    exit(64)
}
let upstream = arguments[2]
let body = ByteBuffer(string: "{\"static\": \"" + String(repeating: "x", count: 1200) + "\"}\n")
let client = HTTPClient(eventLoopGroupProvider: .singleton)
let router = Router()
router.get("static") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
}
router.get("relay/**") { request, context -> Response in
    let path = context.parameters.getCatchAll().joined(separator: "/")
    let answer = try await client.execute(HTTPClientRequest(url: upstream + "/" + path), timeout: .seconds(10))
    let whole = try await answer.body.collect(upTo: 1 << 20)
    var headers = HTTPFields()
    headers[.contentType] = answer.headers.first(name: "content-type") ?? "application/octet-stream"
    return Response(
        status: .init(code: Int(answer.status.code)), headers: headers, body: ResponseBody(byteBuffer: whole))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
if arguments.count == 4, let nioPort = Int(arguments[3]) {
    // The upstream's host and port, from http://HOST:PORT.
    let authority = upstream.dropFirst("http://".count).split(separator: "/").first.map(String.init) ?? ""
    let parts = authority.split(separator: ":")
    guard parts.count == 2, let upstreamPort = Int(parts[1]) else {
        print("the NIO relay needs an upstream of the form http://HOST:PORT")
        exit(64)
    }
    let address = try SocketAddress(ipAddress: String(parts[0]), port: upstreamPort)
    try await withThrowingTaskGroup { group in
        group.addTask { try await app.runService() }
        group.addTask { try await runNIORelay(port: nioPort, upstream: address, host: authority) }
        try await group.next()
        group.cancelAll()
    }
} else {
    try await app.runService()
}
try await client.shutdown()
