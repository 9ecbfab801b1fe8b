#if os(macOS) || os(Linux)
    import Dispatch
    #if canImport(FoundationEssentials)
        public import FoundationEssentials
    #else
        public import Foundation
    #endif
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Opens a URL in the user's browser the way git, gh and Python's `webbrowser` do: the `BROWSER`
    /// environment variable first, then the system opener (`xdg-open` on Linux, `open` on macOS).
    ///
    /// `BROWSER` holds one or more commands separated by `:`, tried in order until one succeeds. In each,
    /// `%s` is replaced by the URL; without `%s` the URL is appended as the last argument. Commands are run
    /// directly (split like a shell would split words, with quotes), never through a shell.
    ///
    /// Open a short link such as `LoopbackRedirectListener.startURL` (SessionKitLoopback), not an authorization URL: a
    /// command's arguments can be read by every user of the machine.
    public enum SystemBrowser {
        /// The commands ``open(_:browser:)`` tries for `url`, in order: the program, then its arguments.
        ///
        /// - Parameter browser: The value of `BROWSER`; `nil` or empty means the system opener only.
        public static func commands(for url: URL, browser: String?) -> [[String]] {
            let text = url.absoluteString
            var commands: [[String]] = []
            for entry in (browser ?? "").split(separator: ":") {
                let words = ShellWords.split(String(entry))
                guard !words.isEmpty else { continue }
                if words.contains(where: { $0.contains("%s") }) {
                    commands.append(words.map { $0.replacing("%s", with: text) })
                } else {
                    commands.append(words + [text])
                }
            }
            #if os(macOS)
                commands.append(["/usr/bin/open", text])
            #else
                commands.append(["xdg-open", text])
            #endif
            return commands
        }

        /// Opens `url` with the first command of ``commands(for:browser:)`` that starts and exits with
        /// status 0 (`BROWSER` commands inherit the terminal, the system opener's output is discarded); `false` when none does (then show the URL to the user instead). Waits for each command
        /// to exit, since a terminal browser such as `w3m` runs until the user quits it: call it from its own
        /// task when the sign-in must go on meanwhile.
        ///
        /// - Parameter browser: The value of `BROWSER`; by default, this process's environment's.
        public static func open(_ url: URL, browser: String? = ProcessInfo.processInfo.environment["BROWSER"])
            async -> Bool
        {
            let commands = commands(for: url, browser: browser)
            for (index, command) in commands.enumerated() {
                // A `BROWSER` command keeps the terminal (it may be a terminal browser); the system opener's
                // chatter is discarded.
                if await run(command, quiet: index == commands.count - 1) { return true }
            }
            return false
        }

        /// Runs `command`; `true` when it exits with 0. The wait for it happens off Swift's cooperative threads
        /// (a terminal browser runs until the user quits it).
        private static func run(_ command: [String], quiet: Bool) async -> Bool {
            guard let program = command.first, let executable = resolve(program) else { return false }
            guard let pid = spawn(executable.path, arguments: command, quiet: quiet) else { return false }
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var status: Int32 = 0
                    var result: pid_t
                    repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
                    // Exited (the low seven bits zero) with status 0.
                    continuation.resume(returning: result == pid && status & 0x7f == 0 && (status >> 8) & 0xff == 0)
                }
            }
        }

        /// Starts `path` with `arguments` (the program's name first) and this process's environment; with
        /// `quiet`, its standard input, output and error are `/dev/null`. The process ID, or `nil` when it could
        /// not be started.
        private static func spawn(_ path: String, arguments: [String], quiet: Bool) -> pid_t? {
            #if canImport(Darwin)
                var actions: posix_spawn_file_actions_t?
            #else
                var actions = posix_spawn_file_actions_t()
            #endif
            guard posix_spawn_file_actions_init(&actions) == 0 else { return nil }
            defer { posix_spawn_file_actions_destroy(&actions) }
            if quiet {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            }
            let argv = arguments.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid = pid_t()
            let started = argv.withUnsafeBufferPointer { argv in
                posix_spawn(&pid, path, &actions, nil, argv.baseAddress!, environ)  // never empty: it ends with nil
            }
            return started == 0 ? pid : nil
        }

        /// `program` as an executable file: a path as given, a name looked up in `PATH`.
        private static func resolve(_ program: String) -> URL? {
            let files = FileManager.default
            if program.contains("/") {
                return files.isExecutableFile(atPath: program) ? URL(fileURLWithPath: program) : nil
            }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            for folder in path.split(separator: ":") where files.isExecutableFile(atPath: "\(folder)/\(program)") {
                return URL(fileURLWithPath: "\(folder)/\(program)")
            }
            return nil
        }
    }
#endif
