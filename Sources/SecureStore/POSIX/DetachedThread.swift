#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A POSIX thread that runs one closure and ends, with nobody joining it.
///
/// For a blocking call the caller may stop waiting for (``TimeBoundCall``): the thread finishes the call and
/// frees itself. A plain `pthread` rather than Foundation's `Thread`, so that programs on Linux link
/// FoundationEssentials only (Foundation's `Thread` alone brings CoreFoundation and ICU into `sessionctl`).
enum DetachedThread {
    /// The closure, carried across `pthread_create` as an unmanaged reference.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new detached thread.
    ///
    /// - Returns: `false` when the system refused a thread (`pthread_create` failed); `body` did not run.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            guard let raw else { return nil }
            let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
            body.run()
            return nil
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        guard pthread_create(&thread, &attributes, entry, context) == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        return true
    }
}
