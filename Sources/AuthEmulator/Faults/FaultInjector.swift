/// Holds injected faults and request counts; one actor hop both counts a request and takes its fault,
/// so "N failures then success" is exact under concurrent requests.
actor FaultInjector {
    private var faults: [AuthEmulator.Endpoint: [AuthEmulator.Fault]] = [:]
    private var counts = AuthEmulator.RequestCounts()

    /// Counts a request and returns the fault that applies to it, consuming one use of a counted fault.
    func admit(_ endpoint: AuthEmulator.Endpoint, grantType: String?) -> AuthEmulator.Fault? {
        counts.byEndpoint[endpoint, default: 0] += 1
        if endpoint == .token {
            counts.byGrantType[grantType ?? "none", default: 0] += 1
        }
        guard var list = faults[endpoint],
            let index = list.firstIndex(where: { $0.grantType == nil || $0.grantType?.rawValue == grantType })
        else { return nil }
        let fault = list[index]
        if let remaining = fault.count {
            if remaining <= 1 {
                list.remove(at: index)
            } else {
                list[index].count = remaining - 1
            }
            faults[endpoint] = list
        }
        return fault
    }

    /// Adds a fault after those already on the endpoint.
    func inject(_ fault: AuthEmulator.Fault, into endpoint: AuthEmulator.Endpoint) {
        faults[endpoint, default: []].append(fault)
    }

    /// Removes the faults of one endpoint, or of all when `endpoint` is `nil`.
    func clear(_ endpoint: AuthEmulator.Endpoint?) {
        if let endpoint {
            faults[endpoint] = nil
        } else {
            faults.removeAll()
        }
    }

    /// The counts so far.
    func requestCounts() -> AuthEmulator.RequestCounts { counts }

    /// Resets the counts to zero.
    func resetCounts() { counts = AuthEmulator.RequestCounts() }
}
