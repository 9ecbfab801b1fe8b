// `JSONValue` (claims, profiles, metadata) is declared in SessionKitSupport, the package's shared machinery, so
// that the emulator and the server targets use the same type, parser and writer. SessionKit re-exports that module
// so that an app that imports SessionKit alone names it, its cases and its members as before, also as
// `SessionKit.JSONValue`. Everything else in SessionKitSupport is `package`: an app sees nothing more.
@_exported public import SessionKitSupport
