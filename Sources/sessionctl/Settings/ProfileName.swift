import ArgumentParser

/// The rule for a profile's name where sessionctl writes it into another tool's configuration (git's config, a
/// kubeconfig) and into the commands it prints: not empty, and no control character (a line break would end the line
/// it is written on).
enum ProfileName {
    /// Throws a usage error for a name that breaks the rule.
    static func validate(_ name: String) throws(ValidationError) {
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(
                "--profile must be a name without line breaks or other control characters, such as gitlab or work")
        }
    }
}
