import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SecureStore
import ServiceLifecycle
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer

/// `sessionkit-bff`: an example back end for front ends. It signs users in at the provider, keeps their
/// sessions in PostgreSQL (or, with `--store memory`, in its own memory, for one instance), and serves a tiny page that shows who is signed in and calls the API through the
/// forwarding route.
@main
struct SessionKitBFFExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionkit-bff",
        abstract: "An example back end for front ends on SessionKit and Hummingbird.",
        discussion: """
            With its defaults it runs against `sessionkit-emulator serve --port 9400` (the emulator's confidential \
            client sessionkit-backend and its published demo secret) and the PostgreSQL that \
            scripts/postgres-start.sh started; then open the public URL. Without PostgreSQL: --store memory (one \
            instance; sessions end when it stops).
            """
    )

    @OptionGroup var options: ExampleOptions

    /// Sizes NIO's event loops to the CPUs this process may use (``CPUAffinity``), then runs the command.
    static func main() async {
        CPUAffinity.sizeEventLoopsToAffinity()
        await main(nil)
    }

    func run() async throws {
        let settings = try options.settings()
        var logger = Logger(label: "sessionkit-bff")
        logger.logLevel = .notice
        if let warning = settings.warning { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        let store: any AsyncSecureStore
        var services: [any Service] = []
        var postgres: (store: PostgresSessionStore, migrations: PostgresSessionStore.Migrations)?
        if let databaseURL = settings.databaseURL {
            do {
                // The application owns one PostgreSQL client and runs it; the store and the migrations share it.
                let database = try PostgresSessionStore.Configuration(url: databaseURL)
                let client = PostgresClient(configuration: try database.clientConfiguration())
                let shared = try PostgresSessionStore(
                    service: options.service, client: client, listener: try database.connectionConfiguration(),
                    keys: .init(current: (id: "bff", key: settings.sealingKey)))
                let migrations = PostgresSessionStore.Migrations(store: shared)
                (store, postgres) = (shared, (shared, migrations))
                services += [client, migrations]
            } catch {
                throw ExampleFailure("the session store (PostgreSQL) cannot be used: \(error)", code: 3)
            }
        } else {
            store = SynchronousStoreAdapter(MemoryStore(service: options.service))
            FileHandle.standardError.write(
                Data(
                    ("note: sessions are kept in this process's memory (--store memory): one instance only, and every "
                        + "user signs in again after a restart\n").utf8))
        }
        let provider = ProviderClient(configuration: settings.provider, logger: nil)
        let sessions = SessionDirectory(provider: provider, store: store)
        let bff = try BackendForFrontend(
            configuration: settings.bff, sessions: sessions, cookieSecret: settings.cookieSecret, logger: logger)
        let banner =
            "sessionkit-bff listening on \(settings.bff.origin) (issuer \(settings.provider.issuer.absoluteString))\n"
        // The database client and the migrations first (shut down last), then the back end's own services;
        // Hummingbird adds the HTTP server, which on SIGTERM or SIGINT stops accepting, lets in-flight requests
        // finish, and then the services stop in reverse order. The server waits for the migrations.
        let app = ExampleApp.build(
            bff: bff, services: services + bff.services(), host: options.host, port: options.port, logger: logger,
            prepare: { [postgres] in
                do {
                    try await postgres?.migrations.ready()
                    if let warning = try await postgres?.store.encryptionWarning() {
                        FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
                    }
                } catch {
                    throw ExampleFailure("the session store (PostgreSQL) cannot be used: \(error)", code: 3)
                }
                FileHandle.standardOutput.write(Data(banner.utf8))
            })
        do {
            try await app.runService()
        } catch let error as SecureStoreError where postgres != nil {
            // The migrations service failed, and its group ended before `prepare` could say so.
            throw ExampleFailure("the session store (PostgreSQL) cannot be used: \(error)", code: 3)
        }
    }
}

/// A failure that ends the program with a message and an exit code.
struct ExampleFailure: Error, CustomStringConvertible {
    let description: String
    let code: Int32

    init(_ description: String, code: Int32) {
        self.description = description
        self.code = code
    }
}
