// The store over the application's own PostgresClient, with its migrations as a service (SessionKitPostgres.md).

// snippet.hide
import Crypto
import Foundation
import Hummingbird
import PostgresNIO
import SessionKitPostgres

let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgres://app@localhost/sessions"
let sealingKey = SymmetricKey(size: .bits256)
let router = Router()
// snippet.show
let database = try PostgresSessionStore.Configuration(url: databaseURL)
// The application's client, which it runs, and may use for its own tables too.
let client = PostgresClient(configuration: try database.clientConfiguration())
let store = try PostgresSessionStore(
    service: "com.example.web",
    client: client,  // shared: the store never runs it nor closes it
    listener: try database.connectionConfiguration(),  // a connection of its own for each LISTEN
    keys: .init(current: (id: "2026-11", key: sealingKey))
)
let migrations = PostgresSessionStore.Migrations(client: client)
var app = Application(router: router, services: [client, migrations])
app.beforeServerStarts { try await migrations.ready() }  // the tables are there before any request
try await app.runService()
