// The emulator's users and their metadata hold `JSONValue`s, the type SessionKit's claims and profiles use,
// declared in SessionKitSupport: re-exported so that a test that imports AuthEmulator alone names it and its members.
@_exported public import SessionKitSupport
