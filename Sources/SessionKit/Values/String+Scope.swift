extension String {
    /// Whether this space-separated scope string contains `scope`.
    func hasScope(_ scope: String) -> Bool {
        split(separator: " ").contains { $0 == scope }
    }
}
