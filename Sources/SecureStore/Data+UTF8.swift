#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Data {
    /// The UTF-8 bytes of `text`.
    ///
    /// `Data(text.utf8)` asks the runtime whether `String.UTF8View` is `ContiguousBytes`, and in a large binary
    /// the first such question scans every protocol conformance in it: a measurable share of a short-lived
    /// process such as `sessionctl token` (see `Benchmarks/cli.sh`). Copying from the string's UTF-8 buffer
    /// asks nothing.
    package init(utf8Of text: String) {
        var text = text
        self = text.withUTF8 { Data(buffer: $0) }
    }
}
