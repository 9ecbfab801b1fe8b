import Foundation
import Hummingbird
import HummingbirdAnswers
import HummingbirdCore
import Logging
import NIOCore
import SessionKitSupport

/// The outermost responder: counts the request, applies an injected fault, runs the router, and stamps the
/// `Date` header from the emulator clock. It works below the router because dropping a connection or sending
/// a truncated body needs the channel itself.
struct FaultingResponder: Sendable {
    let core: EmulatorCore
    let router: RouterResponder<EmulatorRequestContext>

    func respond(_ request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        var request = request
        let endpoint = AuthEmulator.Endpoint(path: request.uri.path)
        core.logger.debug("Request", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
        var grantType: String?
        if endpoint == .token {
            guard let buffer = try? await request.collectBody(upTo: 1024 * 1024) else {
                let error = OAuthError(.invalidRequest, "The request body is too large or unreadable.")
                try await write(error.response, to: writer)
                return
            }
            grantType = Self.grantType(in: Data(buffer.readableBytesView), contentType: request.headers[.contentType])
        }
        guard let endpoint, let fault = await core.faults.admit(endpoint, grantType: grantType) else {
            try await write(await route(request, channel: channel), to: writer)
            return
        }
        core.logger.debug("Injecting fault", metadata: ["endpoint": "\(endpoint)", "action": "\(fault.action)"])
        let stalls = fault.action == .stalledBody || fault.action == .processThenStall
        if !stalls, fault.latency.isFinite, fault.latency > 0 {
            try await Task.sleep(for: .milliseconds(Int(min(fault.latency, 600) * 1000)))
        }
        switch fault.action {
        case .none:
            try await write(await route(request, channel: channel), to: writer)
        case .status:
            let code = fault.status.flatMap { (100...599).contains($0) ? $0 : nil } ?? 500
            let status = HTTPResponse.Status(code: code, reasonPhrase: Self.reasonPhrases[code] ?? "")
            let body: [String: JSONValue] = [
                "error": "temporarily_unavailable", "error_description": .string("Injected fault: HTTP \(code)."),
            ]
            var response = Answer.json(body, status: status)
            if status.code == 429 || status.code == 503 { response.headers[.retryAfter] = "1" }
            try await write(response, to: writer)
        case .malformedBody:
            try await write(Self.json("{\"access_token\": \"unterminated, <html>not json</html>"), to: writer)
        case .truncatedBody:
            try await writePartialBody("{\"access_token\":\"eyJhbGciOiJSUzI1NiIs", to: writer)
            try await Task.sleep(for: .milliseconds(50))
            try await channel.close()
        case .dropConnection:
            try await channel.close()
        case .processThenDrop:
            _ = await route(request, channel: channel)
            try await channel.close()
        case .stalledBody:
            try await writePartialBody("{\"access_token\":", to: writer)
            try await Self.stall(channel, for: fault.latency)
        case .oversizedBody:
            try await write(Self.json("{\"padding\":\"" + String(repeating: "x", count: 2 << 20) + "\"}"), to: writer)
        case .otherSubject:
            let body: [String: JSONValue] = ["sub": "auth0|someone-else", "name": "Someone Else"]
            try await write(Answer.json(body), to: writer)
        case .processThenStall:
            _ = await route(request, channel: channel)
            try await Self.stall(channel, for: fault.latency)
        }
    }

    /// A 200 answer with `body` as its JSON.
    private static func json(_ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Sends a 200 head that declares a 512-byte JSON body, and then only `prefix` of it.
    private func writePartialBody(_ prefix: String, to writer: consuming ResponseWriter) async throws {
        var head = HTTPResponse(status: .ok)
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = "512"
        head.headerFields[.date] = core.clock.now.httpDate
        var bodyWriter = try await writer.writeHead(head)
        try await bodyWriter.write(ByteBuffer(string: prefix))
    }

    /// Keeps the connection open without sending anything for `seconds` (5 when not positive, 600 at most),
    /// then closes it. The server does not notice a client that has gone away meanwhile (it reads nothing
    /// while a request is being answered), so the stall has a length rather than waiting for the client.
    private static func stall(_ channel: any Channel, for seconds: Double) async throws {
        let length = seconds.isFinite && seconds > 0 ? min(seconds, 600) : 5
        try await Task.sleep(for: .milliseconds(Int(length * 1000)))
        try? await channel.close()
    }

    private func route(_ request: Request, channel: any Channel) async -> Response {
        let context = EmulatorRequestContext(source: .init(channel: channel, logger: core.logger))
        do {
            return try await router.respond(to: request, context: context)
        } catch {
            core.logger.debug("Unhandled error", metadata: ["error.type": "\(type(of: error))"])
            return Answer.json(
                ["error": "server_error", "error_description": "Internal error."], status: .internalServerError)
        }
    }

    private func write(_ response: Response, to writer: consuming ResponseWriter) async throws {
        var response = response
        response.headers[.date] = core.clock.now.httpDate
        try await writer.write(response: response.head, body: response.body)
    }

    private static let reasonPhrases = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
        429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout",
    ]

    private static func grantType(in body: Data, contentType: String?) -> String? {
        if contentType?.lowercased().hasPrefix("application/json") == true {
            return (try? RequestParameters.json(body))?["grant_type"]
        }
        return RequestParameters.form(String(decoding: body, as: UTF8.self))["grant_type"]
    }
}
