import Hummingbird

/// The request context of emulator routes: Hummingbird's core storage and nothing else.
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Management API bodies are small; anything larger is refused before decoding.
    var maxUploadSize: Int { 256 * 1024 }
}
