import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import SessionKit
import SessionKitServer
import Tracing

extension BackendForFrontend {
    /// `<prefix>/api/...`: forwards the request to the upstream with the user's fresh access token, streaming the
    /// bodies both ways within the configured limits.
    ///
    /// 403 without the anti-forgery header or from another site; 401 (`sign_in`) without a live session; 400 for
    /// a path the allow-list refuses (``ForwardedPath``); 413 for a request body over the limit; 502/503 when the
    /// provider or the store cannot renew the token right now (the session is kept); 502 or 504 when the
    /// upstream cannot be reached, answers too much or too slowly. The upstream's own answers pass through with
    /// the headers hardened (``HopByHopHeaders/downstream(_:)``).
    func forward(_ request: Request, to target: ForwardTarget) async -> Response {
        let start = ContinuousClock.now
        let span = startSpan("sessionkit.bff.forward", ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        let response = await relay(request, to: target)
        let status = response.status.code
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
        metrics.forwarded(status: status, after: ContinuousClock.now - start)
        return response
    }

    /// What ``forward(_:)`` answers, before it is counted.
    private func relay(_ request: Request, to destination: ForwardTarget) async -> Response {
        if let refusal = forgeryCheck.apiRefusal(for: request) { return refusal }
        guard let target = ForwardedPath.validated(request.uri.string, under: destination.mount) else {
            return Answers.error(
                .badRequest, "invalid_path",
                "The path has characters or escapes that are not forwarded ('.' or '..' segments, '\\\\', ';', encoded "
                    + "slashes, percent signs or control characters, or invalid UTF-8).")
        }
        let state = await cookieSession(request)
        guard case .live(let session, let refresh) = state else { return noSession(state) }
        let length = request.headers[.contentLength].flatMap(Int64.init)
        if let length, length > configuration.maxRequestBodySize {
            return Answers.error(
                .contentTooLarge, "request_too_large",
                "The request body is larger than \(configuration.maxRequestBodySize) bytes, the most this server forwards."
            )
        }
        let credentials: Credentials
        do {
            let minTTL = configuration.minimumTokenLifetime
            if let api = destination.api {
                credentials = try await sessions.credentials(
                    for: session.id, audience: api.audience, scope: api.scope, minTTL: minTTL)
            } else {
                credentials = try await sessions.credentials(for: session.id, minTTL: minTTL)
            }
        } catch {
            return sessionFailure(error)
        }
        var outgoing = HTTPClientRequest(url: destination.base + target)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = HopByHopHeaders.upstream(request.headers, removing: headersNotForwarded)
        // Bearer, or for DPoP-bound tokens `Authorization: DPoP` and a proof for this very request.
        do {
            try await authorize(&outgoing, with: credentials)
        } catch {
            return sessionFailure(error)
        }
        let limited = BodyLimit(request.body, limit: configuration.maxRequestBodySize)
        if let length {
            if length > 0 { outgoing.body = .stream(limited, length: .known(length)) }
        } else if request.headers[.transferEncoding] != nil {
            outgoing.body = .stream(limited, length: .unknown)
        }
        let deadline = NIODeadline.now() + .init(configuration.upstreamTimeout)
        var answer: HTTPClientResponse
        do {
            answer = try await httpClient.execute(outgoing, deadline: deadline)
            // An upstream that wants a DPoP nonce did not act on the request: a bodiless one goes once more.
            if credentials.isDPoPBound, answer.status == .unauthorized, outgoing.body == nil,
                let url = URL(string: outgoing.url),
                provider.learnDPoPNonce(from: Self.challenge(in: answer), for: url)
            {
                try await authorize(&outgoing, with: credentials)
                answer = try await httpClient.execute(outgoing, deadline: deadline)
            }
        } catch let error as HTTPClientError where Self.isTimeout(error) {
            return Self.upstreamTimedOut
        } catch is BodyLimitExceeded {
            return Answers.error(
                .contentTooLarge, "request_too_large",
                "The request body is larger than \(configuration.maxRequestBodySize) bytes, the most this server forwards."
            )
        } catch {
            logger?.warning("upstream unreachable", metadata: ["error": "\(type(of: error))"])
            return Answers.error(UpstreamFailure.unavailable)
        }
        let announced = answer.headers.first(name: "content-length").flatMap(Int.init)
        if let announced, announced > configuration.maxResponseBodySize {
            return Answers.error(UpstreamFailure.tooLarge)
        }
        var headers = HopByHopHeaders.downstream(answer.headers)
        if let refresh { headers.append(HTTPField(name: .setCookie, value: refresh)) }
        let body = BodyLimit(answer.body, limit: configuration.maxResponseBodySize)
        let status = HTTPResponse.Status(code: Int(answer.status.code))
        if request.method != .head, let announced, announced <= Self.wholeAnswerLimit {
            // A small answer of announced length is read whole and goes out with its head in one write: streamed,
            // the head and the body are two writes, and the browser's side wakes up for each.
            do {
                let whole = try await Self.read(body, before: deadline)
                return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: whole))
            } catch let error as HTTPClientError where Self.isTimeout(error) {
                return Self.upstreamTimedOut
            } catch {
                logger?.warning("upstream answer cut short", metadata: ["error": "\(type(of: error))"])
                return Answers.error(UpstreamFailure.cutShort)
            }
        }
        let logger = logger
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: request.method == .head ? nil : announced) { writer in
                // The deadline covers the body too: an upstream that trickles a byte at a time is cut off at it
                // (one that goes silent is cut off sooner, by the read timeout). The head is out already, so the
                // browser sees the answer end early.
                for try await chunk in body {
                    guard NIODeadline.now() < deadline else {
                        logger?.notice("upstream body cut off at the deadline")
                        throw HTTPClientError.deadlineExceeded
                    }
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            })
    }
}

extension BackendForFrontend {
    /// Whether the upstream ran out of time: past the request's deadline, or silent past the read timeout.
    static func isTimeout(_ error: HTTPClientError) -> Bool {
        error == .deadlineExceeded || error == .readTimeout
    }

    /// The answer when the upstream ran out of time, for its head or its whole answer.
    static var upstreamTimedOut: Response {
        Answers.error(UpstreamFailure.timedOut)
    }

    /// The largest upstream answer, by its announced `Content-Length`, that is read whole before it is passed on
    /// (larger ones, and those of unknown length, are streamed).
    static let wholeAnswerLimit = 64 << 10

    /// Reads `body` into one buffer, failing with `HTTPClientError.deadlineExceeded` once `deadline` has passed
    /// (an upstream that trickles); one that goes silent is ended sooner by the client's read timeout.
    static func read<Body: AsyncSequence>(_ body: Body, before deadline: NIODeadline) async throws -> ByteBuffer
    where Body.Element == ByteBuffer {
        var whole = ByteBuffer()
        for try await chunk in body {
            guard NIODeadline.now() < deadline else { throw HTTPClientError.deadlineExceeded }
            // Most answers come in one chunk: that chunk is the answer, not a copy of it.
            if whole.readableBytes == 0 { whole = chunk } else { whole.writeImmutableBuffer(chunk) }
        }
        return whole
    }

    /// Sets the upstream request's authorization for `credentials`: a bearer token, or a DPoP-bound token with a
    /// fresh proof for the request's method and URL (and the upstream's last nonce).
    func authorize(_ outgoing: inout HTTPClientRequest, with credentials: Credentials) async throws(SessionKitError) {
        // A bearer token needs no proof, so no parse of the URL (AsyncHTTPClient parses it anyway).
        guard credentials.isDPoPBound else {
            let bearer = "Bearer " + credentials.accessToken.unsafeRawValue
            outgoing.headers.replaceOrAdd(name: "Authorization", value: bearer)
            return
        }
        guard let url = URL(string: outgoing.url) else {
            throw SessionKitError(code: .invalidInput, message: "the upstream URL cannot be parsed")
        }
        let headers = try await provider.authorizationHeaders(
            for: credentials, method: outgoing.method.rawValue, url: url)
        for (name, value) in headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
    }

    /// What of an upstream answer tells a DPoP nonce challenge apart: its status and the two headers.
    static func challenge(in answer: HTTPClientResponse) -> SessionKit.HTTPResponse {
        let names = ["DPoP-Nonce", "WWW-Authenticate"]
        let fields = names.compactMap { name in answer.headers.first(name: name).map { (name: name, value: $0) } }
        return SessionKit.HTTPResponse(status: Int(answer.status.code), headers: fields)
    }
}
