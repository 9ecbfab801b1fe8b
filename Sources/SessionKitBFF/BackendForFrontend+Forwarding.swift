import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// `<prefix>/api/...`: forwards the request to the upstream with the user's fresh access token, streaming the
    /// bodies both ways.
    ///
    /// 401 (`sign_in`) without a session or when it ended; 403 for a state-changing request from another site;
    /// 502/503 when the provider or the store cannot renew the token right now (the session is kept); 502 or
    /// 504 when the upstream cannot be reached or is too slow. The upstream's own answers pass through as sent.
    func forward(_ request: Request) async -> Response {
        guard let upstreamBase else {
            return Answers.error(.notFound, "not_found", "No upstream is configured for /api.")
        }
        if let refusal = forgeryCheck.refusal(for: request) { return refusal }
        guard let id = cookies.sessionID(in: request) else {
            return Answers.error(
                .unauthorized, "sign_in_required", "There is no session; send the user to sign in.", signIn: signInPath)
        }
        guard let target = Self.target(of: request.uri.string, under: configuration.prefix + "/api", base: upstreamBase)
        else {
            return Answers.error(
                .badRequest, "invalid_path",
                "The path has '.' or '..' segments, a backslash or an encoded slash, which are not forwarded.")
        }
        let credentials: Credentials
        do {
            credentials = try await sessions.credentials(for: id, minTTL: configuration.minimumTokenLifetime)
        } catch {
            return sessionFailure(error)
        }
        var outgoing = HTTPClientRequest(url: target)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = HopByHopHeaders.upstream(request.headers, removing: headersNotForwarded)
        outgoing.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(credentials.accessToken.unsafeRawValue)")
        if let length = request.headers[.contentLength].flatMap(Int64.init) {
            if length > 0 { outgoing.body = .stream(request.body, length: .known(length)) }
        } else if request.headers[.transferEncoding] != nil {
            outgoing.body = .stream(request.body, length: .unknown)
        }
        let answer: HTTPClientResponse
        do {
            answer = try await httpClient.execute(outgoing, timeout: .init(configuration.upstreamTimeout))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return Answers.error(.gatewayTimeout, "upstream_timeout", "The API did not answer in time; try again.")
        } catch {
            logger?.warning("upstream unreachable", metadata: ["error": "\(type(of: error))"])
            return Answers.error(.badGateway, "upstream_unavailable", "The API cannot be reached; try again later.")
        }
        let headers = HopByHopHeaders.downstream(answer.headers)
        let length = answer.headers.first(name: "content-length").flatMap(Int.init)
        let body = answer.body
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers,
            body: ResponseBody(contentLength: request.method == .head ? nil : length) { writer in
                try await writer.write(body)
                try await writer.finish(nil)
            })
    }

    /// The upstream URL for a request target such as `/api/orders?x=1` (`/orders?x=1` appended to `base`, the
    /// upstream URL without trailing slashes), or `nil` when the path has dot segments, or a backslash or an
    /// encoded slash or backslash: any of them could climb above the upstream's base path on a server that
    /// decodes or normalises them.
    static func target(of requestTarget: String, under mount: String, base: String) -> String? {
        guard requestTarget.hasPrefix(mount) else { return nil }
        var rest = String(requestTarget.dropFirst(mount.count))
        if !rest.hasPrefix("/") { rest = "/" + rest }
        let path = (rest.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "").lowercased()
        guard !path.contains("\\"), !path.contains("%2f"), !path.contains("%5c") else { return nil }
        let segments = path.replacingOccurrences(of: "%2e", with: ".").split(separator: "/")
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        return base + rest
    }
}
