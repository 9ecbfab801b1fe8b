import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

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
        if fault.latency.isFinite, fault.latency > 0 {
            try await Task.sleep(for: .milliseconds(Int(min(fault.latency, 600) * 1000)))
        }
        switch fault.action {
        case .none:
            try await write(await route(request, channel: channel), to: writer)
        case .status:
            let code = fault.status.flatMap { (100...599).contains($0) ? $0 : nil } ?? 500
            let status = HTTPResponse.Status(code: code, reasonPhrase: Self.reasonPhrases[code] ?? "")
            let body: [String: EmulatorJSON] = [
                "error": "temporarily_unavailable", "error_description": .string("Injected fault: HTTP \(code)."),
            ]
            var response = JSONResponse.make(body, status: status)
            if status.code == 429 || status.code == 503 { response.headers[.retryAfter] = "1" }
            try await write(response, to: writer)
        case .malformedBody:
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let body = ByteBuffer(string: "{\"access_token\": \"unterminated, <html>not json</html>")
            try await write(Response(status: .ok, headers: headers, body: .init(byteBuffer: body)), to: writer)
        case .truncatedBody:
            var head = HTTPResponse(status: .ok)
            head.headerFields[.contentType] = "application/json"
            head.headerFields[.contentLength] = "512"
            head.headerFields[.date] = core.clock.now.httpDate
            var bodyWriter = try await writer.writeHead(head)
            try await bodyWriter.write(ByteBuffer(string: "{\"access_token\":\"eyJhbGciOiJSUzI1NiIs"))
            try await Task.sleep(for: .milliseconds(50))
            try await channel.close()
        case .dropConnection:
            try await channel.close()
        case .processThenDrop:
            _ = await route(request, channel: channel)
            try await channel.close()
        }
    }

    private func route(_ request: Request, channel: any Channel) async -> Response {
        let context = EmulatorRequestContext(source: .init(channel: channel, logger: core.logger))
        do {
            return try await router.respond(to: request, context: context)
        } catch {
            core.logger.debug("Unhandled error", metadata: ["error.type": "\(type(of: error))"])
            return JSONResponse.make(
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
