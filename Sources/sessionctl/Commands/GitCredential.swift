import ArgumentParser

/// `sessionctl git-credential`: the git credential helper (``GitCredentialAnswer``, the default subcommand, so that
/// git's `sessionctl git-credential get` reaches it) and the command that sets git up to use it
/// (``GitCredentialConfigure``).
struct GitCredential: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper that answers with a fresh access token, and the command that sets it up.",
        discussion: """
            Set git up once for a forge, then git asks sessionctl for a token on each clone, fetch and push:

              sessionctl git-credential configure --profile gitlab            # the issuer's host
              sessionctl git-credential configure --profile P --host git.example.com

            git runs the helper as 'sessionctl git-credential [--profile P] get|store|erase'; see \
            sessionctl git-credential answer --help.
            """,
        subcommands: [GitCredentialAnswer.self, GitCredentialConfigure.self],
        defaultSubcommand: GitCredentialAnswer.self
    )
}
