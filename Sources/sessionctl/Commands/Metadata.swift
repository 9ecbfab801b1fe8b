import ArgumentParser
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl metadata`: reads and edits `user_metadata` through the Management API.
struct Metadata: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read and edit your user_metadata through Auth0's Management API.",
        discussion: "Needs a session for the Management API audience with the scopes read:current_user and "
            + "update:current_user_metadata: sessionctl configure --audience https://TENANT/api/v2/ --scope "
            + "\"openid profile email offline_access read:current_user update:current_user_metadata\", then "
            + "sessionctl login.\n\nExamples: sessionctl metadata get; sessionctl metadata set theme=dark; "
            + "sessionctl metadata unset theme",
        subcommands: [Get.self, Set.self, Unset.self]
    )

    /// `body`, with a Management API refusal of the session's token (401, 403) told as what to configure: the
    /// audience of the issuer's Management API and its scopes, as sessionctl's own options.
    static func advising<T>(_ context: SessionContext, _ body: () async throws(SessionKitError) -> T)
        async throws(SessionKitError) -> T
    {
        do {
            return try await body()
        } catch  where error.code == .invalidConfiguration && [401, 403].contains(error.httpStatus ?? 0) {
            let issuer = context.configuration.issuer.absoluteString
            let api = issuer.hasSuffix("/") ? issuer + "api/v2/" : issuer + "/api/v2/"
            let scope = ProviderConfiguration.defaultScope + " read:current_user update:current_user_metadata"
            let profile = ShellWord.quoted(context.resolved.profile)
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "\(error.message.prefix { $0 != ":" }): the session's token is not for the Management API "
                    + "or lacks its scopes; run: sessionctl configure --profile \(profile) --audience \(api) --scope "
                    + "\(ShellWord.quoted(scope)) && sessionctl login --profile \(profile)",
                httpStatus: error.httpStatus, underlyingError: error)
        }
    }

    /// The signed-in user's id, from the cached profile or the ID token.
    static func subject(_ session: SessionManager) async throws(SessionKitError) -> String {
        if let subject = try await session.cachedProfile()?.subject, !subject.isEmpty { return subject }
        if let subject = try await session.storedCredentials()?.idTokenClaims?.subject { return subject }
        return try await session.userInfo().subject
    }

    static func printJSON(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        Terminal.out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print user_metadata, or one key of it.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "A top-level key of user_metadata.") var key: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await reporting {
                let context = try SessionContext.make(options)
                let session = context.session
                let user = try await Metadata.advising(context) { () async throws(SessionKitError) in
                    try await ManagementClient(session: session)
                        .user(id: try await Metadata.subject(session), fields: ["user_metadata"])
                }
                let metadata = user["user_metadata"] ?? .object([:])
                guard let key else {
                    return try Metadata.printJSON(metadata)
                }
                guard let value = metadata[key] else {
                    throw SessionKitError(code: .invalidInput, message: "user_metadata has no key '\(key)'")
                }
                if !json, let text = value.stringValue { Terminal.out(text) } else { try Metadata.printJSON(value) }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set keys of user_metadata: KEY=VALUE ... (a VALUE that is JSON is stored as JSON)."
        )

        @OptionGroup var options: GlobalOptions
        @Argument(help: "KEY=VALUE pairs.") var assignments: [String]

        func validate() throws {
            guard !assignments.isEmpty else { throw ValidationError("give at least one KEY=VALUE") }
            for assignment in assignments where !assignment.contains("=") || assignment.hasPrefix("=") {
                throw ValidationError("'\(assignment)' is not KEY=VALUE")
            }
        }

        func run() async throws {
            var changes: [String: JSONValue] = [:]
            for assignment in assignments {
                let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let text = String(parts[1])
                changes[String(parts[0])] = (try? JSONValue(parsing: Data(text.utf8))) ?? .string(text)
            }
            try await patch(options, changes)
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove keys from user_metadata.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Top-level keys to remove.") var keys: [String]

        func run() async throws {
            try await patch(options, Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.null) }))
        }
    }
}

private func patch(_ options: GlobalOptions, _ changes: [String: JSONValue]) async throws {
    try await reporting {
        let context = try SessionContext.make(options)
        let session = context.session
        let user = try await Metadata.advising(context) { () async throws(SessionKitError) in
            try await ManagementClient(session: session)
                .patchUserMetadata(id: try await Metadata.subject(session), changes)
        }
        try Metadata.printJSON(user["user_metadata"] ?? .object([:]))
    }
}
