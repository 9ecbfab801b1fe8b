import ArgumentParser
import SessionKit

/// `sessionkit-emulator`: the local Auth0-compatible identity provider, and the demo that walks the whole
/// session story against it. Kept apart from `sessionctl`, which links none of the server stack.
@main
struct SessionKitEmulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionkit-emulator",
        abstract: "A local Auth0-compatible identity provider, and a demo of SessionKit against it.",
        discussion: """
            `serve` runs the provider until Ctrl-C and prints its issuer, clients and users; configure \
            sessionctl against it with `sessionctl configure --issuer ISSUER --client-id sessionkit-native`. \
            `demo` starts one in-process and checks every step of the session story.
            """,
        version: SessionKitVersion.current,
        subcommands: [Demo.self, Serve.self],
        defaultSubcommand: Demo.self
    )
}
