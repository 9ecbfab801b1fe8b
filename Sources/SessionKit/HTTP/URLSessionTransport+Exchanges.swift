import SessionKitSupport

#if canImport(Darwin) || URLSessionOnLinux
    import Dispatch
    import Foundation
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
    #if canImport(Security)
        import Security
    #endif

    extension URLSessionTransport {
        /// The session's delegate: collects each task's answer, refuses redirects, caps bodies and ends tasks
        /// that outlast their deadline, then resumes the waiting caller once.
        final class Exchanges: NSObject, URLSessionDataDelegate, Sendable {
            private struct Exchange {
                let continuation: CheckedContinuation<Result<HTTPResponse, Failure>, Never>
                var response: HTTPURLResponse?
                var body = Data()
                var failure: Failure?
            }

            private let running = Mutex<[Int: Exchange]>([:])
            /// The DER certificates of the authorities trusted besides the system's.
            private let anchors: [Data]
            /// The proxies, for the user and password a proxy asks for.
            private let proxy: ProxyRules?

            init(anchors: [Data], proxy: ProxyRules?) {
                self.anchors = anchors
                self.proxy = proxy
            }

            /// Starts `task`, to resume `continuation` with its outcome; cancels it after `timeout`.
            func start(
                _ task: URLSessionDataTask, timeout: Duration,
                continuation: CheckedContinuation<Result<HTTPResponse, Failure>, Never>
            ) {
                let id = task.taskIdentifier
                running.withLock { $0[id] = Exchange(continuation: continuation) }
                DispatchQueue.global().asyncAfter(deadline: .now() + max(timeout.seconds, 0.001)) { [weak self] in
                    self?.fail(id, with: .timedOut, cancelling: task)
                }
                task.resume()
            }

            /// Records why `id` failed, unless it already ended, and cancels its task.
            private func fail(_ id: Int, with failure: Failure, cancelling task: URLSessionTask) {
                let marked = running.withLock { running -> Bool in
                    guard running[id] != nil, running[id]?.failure == nil else { return false }
                    running[id]?.failure = failure
                    return true
                }
                if marked { task.cancel() }
            }

            func urlSession(
                _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
            ) {
                running.withLock { $0[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse }
                completionHandler(.allow)
            }

            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
                let tooLarge = running.withLock { running -> Bool in
                    guard var exchange = running[dataTask.taskIdentifier] else { return false }
                    exchange.body.append(data)
                    running[dataTask.taskIdentifier] = exchange
                    return exchange.body.count > HTTPLimits.maximumBodySize
                }
                if tooLarge { fail(dataTask.taskIdentifier, with: .tooLarge, cancelling: dataTask) }
            }

            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
            ) {
                completionHandler(nil)  // Never follow: the redirect itself is the answer.
            }

            #if canImport(Darwin)
                /// Evaluates the server's certificate with the extra authorities as anchors besides the system's,
                /// and answers a proxy's request for its user and password.
                func urlSession(
                    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
                ) {
                    let space = challenge.protectionSpace
                    if space.authenticationMethod == NSURLAuthenticationMethodServerTrust, !anchors.isEmpty,
                        let trust = space.serverTrust
                    {
                        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                        SecTrustSetAnchorCertificates(trust, certificates as CFArray)
                        SecTrustSetAnchorCertificatesOnly(trust, false)
                        if SecTrustEvaluateWithError(trust, nil) {
                            completionHandler(.useCredential, URLCredential(trust: trust))
                        } else {
                            completionHandler(.cancelAuthenticationChallenge, nil)
                        }
                        return
                    }
                    if space.isProxy(), challenge.previousFailureCount == 0,
                        let server = [proxy?.https, proxy?.http].compactMap({ $0 }).first(where: {
                            $0.host == space.host && $0.port == space.port && $0.user != nil
                        }), let user = server.user
                    {
                        let password = server.password?.unsafeRawValue ?? ""
                        let credential = URLCredential(user: user, password: password, persistence: .none)
                        completionHandler(.useCredential, credential)
                        return
                    }
                    completionHandler(.performDefaultHandling, nil)
                }
            #endif

            func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
                guard let exchange = running.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
                exchange.continuation.resume(returning: Self.outcome(of: exchange, error: error))
            }

            private static func outcome(of exchange: Exchange, error: (any Error)?) -> Result<HTTPResponse, Failure> {
                if let failure = exchange.failure { return .failure(failure) }
                if let error = error as? URLError {
                    return .failure(error.code == .cancelled ? .cancelled : .transport(error))
                }
                if error != nil { return .failure(.transport(URLError(.unknown))) }
                guard let response = exchange.response else {
                    return .failure(.transport(URLError(.badServerResponse)))
                }
                let headers = response.allHeaderFields.compactMap { name, value -> (name: String, value: String)? in
                    guard let name = name as? String, let value = value as? String else { return nil }
                    return (name, value)
                }
                let answer = HTTPResponse(status: response.statusCode, headers: headers, body: exchange.body)
                // A body shorter than declared (and not decoded on the way) was cut off by a closed connection.
                if answer.header("Content-Encoding") == nil,
                    let declared = answer.header("Content-Length").flatMap(Int.init),
                    declared != exchange.body.count
                {
                    return .failure(.cutShort)
                }
                return .success(answer)
            }
        }
    }
#endif
