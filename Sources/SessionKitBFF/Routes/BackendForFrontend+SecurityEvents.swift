import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// `POST /auth/ssf/events`: the push delivery (RFC 8935) of a Security Event Token from the provider as a
    /// Shared Signals transmitter (OpenID SSF 1.0). The body, `application/secevent+jwt`, is validated
    /// (``SessionKit/ProviderClient/validateSecurityEventToken(_:audience:maxAge:)``), its `jti` is recorded in the
    /// shared store so that a second delivery is refused on every instance, and for CAEP `session-revoked` and
    /// `credential-change` and RISC `account-disabled` and `account-purged` every session of the subject ends on
    /// every instance (the store announces it) and its refresh token is revoked. Other event types are
    /// acknowledged and change nothing.
    ///
    /// 202 when done; 400 with RFC 8935's `{"err": ..., "description": ...}` for anything but a valid, unused token
    /// (nothing is ended): `invalid_key` for a bad signature or an unknown key, `invalid_issuer`,
    /// `invalid_audience`, else `invalid_request`; 503 when the store or the provider's keys cannot be reached (the
    /// transmitter may deliver it again).
    func securityEvent(_ request: Request) async -> Response {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/secevent+jwt") == true else {
            return refusedEvent("invalid_request", "the body must be a security event token (application/secevent+jwt)")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 16 << 10)
        } catch {
            return refusedEvent("invalid_request", "the body is larger than a security event token can be (16 KiB)")
        }
        let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
        let token: SecurityEventToken
        do {
            token = try await provider.validateSecurityEventToken(
                Secret(text), audience: configuration.securityEventAudience)
        } catch  where error.isRetryable {
            logger?.warning("security event: keys unavailable", metadata: ["error": "\(error.code)"])
            return Answers.error(
                .serviceUnavailable, "temporarily_unavailable",
                "The provider's keys could not be fetched to check the security event; deliver it again.",
                retryAfter: 5)
        } catch {
            let check = error.failedCheck
            logger?.notice("security event refused", metadata: ["check": "\(check.map { "\($0)" } ?? "\(error.code)")"])
            return refusedEvent(
                Self.eventErrorCode(check), "the token is not valid (\(check.map { "\($0)" } ?? "\(error.code)"))")
        }
        // As for logout tokens: the replay check first, and the token spent only once its sessions have ended, so a
        // failure on the way leaves it unspent and the transmitter's next delivery still works.
        let replayKey = "ssf:" + token.jwtID
        let ended: Int
        do throws(any Error) {
            guard try await !index.isSpent(jwtID: replayKey) else {
                logger?.notice("security event refused: delivered before")
                return refusedEvent("invalid_request", "this security event token was delivered before (its jti)")
            }
            var accounts: Set<String> = []
            if token.endsSessions {
                accounts = try await index.accounts(subject: token.subject, sid: nil)
                try await sessions.logout(accounts: accounts)
            }
            _ = try await index.spend(jwtID: replayKey, until: token.expiresAt)
            if !accounts.isEmpty { try await index.remove(accounts: accounts, subject: token.subject, sid: nil) }
            ended = accounts.count
        } catch {
            logger?.warning("security event: store unavailable", metadata: ["error": "\(error)"])
            return Answers.error(
                .serviceUnavailable, "temporarily_unavailable",
                "The session store cannot be reached right now; deliver the security event again.", retryAfter: 1)
        }
        logger?.info(
            "security event", metadata: ["events": "\(token.events.map(\.type))", "sessions": "\(ended)"])
        return Response(status: .accepted)
    }

    /// RFC 8935 §2.4's error code for a failed check.
    static func eventErrorCode(_ check: ValidationCheck?) -> String {
        switch check {
        case .signature?, .unknownKey?, .algorithm?: "invalid_key"
        case .issuer?: "invalid_issuer"
        case .audience?: "invalid_audience"
        default: "invalid_request"
        }
    }

    /// RFC 8935 §2.3's error answer: 400 with `err` and `description`.
    private func refusedEvent(_ code: String, _ reason: String) -> Response {
        Answers.json(
            .badRequest, SecurityEventRefusal(err: code, description: "The security event was refused: \(reason)."))
    }
}

/// RFC 8935 §2.3's error body.
struct SecurityEventRefusal: Encodable {
    var err: String
    var description: String
}
