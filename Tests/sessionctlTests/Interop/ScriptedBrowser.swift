import Foundation
import Synchronization

@testable import SessionKit

/// A minimal browser for scripted sign-ins: it keeps cookies, follows redirects (including the last one, to
/// the CLI's loopback listener) and fills in and submits the HTML forms of a provider's own pages.
///
/// It knows no provider: each ``InteropProvider`` says which forms to submit with which fields.
final class ScriptedBrowser: Sendable {
    /// A page the browser ended on after following redirects.
    struct Page: Sendable {
        let url: URL
        let status: Int
        let html: String

        /// The page's first form.
        func form() throws -> HTMLForm {
            guard let form = HTMLForm(html: html, page: url) else {
                throw TestFailure("no form on \(url.path) (HTTP \(status)): \(html.prefix(300))")
            }
            return form
        }
    }

    private let transport = ProviderClient.defaultTransport
    private let cookies = Mutex<[String: String]>([:])

    /// Opens `url` and follows redirects.
    func open(_ url: URL) async throws -> Page {
        try await load(HTTPRequest(method: "GET", url: url))
    }

    /// Submits `page`'s first form with its own fields (hidden ones, pre-filled values) changed by `fields`.
    func submit(_ page: Page, _ fields: [String: String]) async throws -> Page {
        let form = try page.form()
        let values = form.fields.merging(fields) { $1 }
        let body = FormEncoding.encode(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let request = HTTPRequest(
            method: "POST",
            url: form.action,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Referer", page.url.absoluteString)],
            body: body
        )
        return try await load(request)
    }

    /// Sends `request` with the cookies, keeps new ones, and follows up to ten redirects with GET.
    private func load(_ first: HTTPRequest) async throws -> Page {
        var request = first
        for _ in 0..<10 {
            let jar = cookies.withLock { $0 }
            if !jar.isEmpty {
                request.headers.append(
                    ("Cookie", jar.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: "; ")))
            }
            let response = try await transport.send(request, timeout: .seconds(10))
            keepCookies(response)
            if (300..<400).contains(response.status), let location = response.header("Location") {
                guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
                    throw TestFailure("a redirect to an unreadable location: \(location)")
                }
                request = HTTPRequest(method: "GET", url: next)
                continue
            }
            return Page(url: request.url, status: response.status, html: String(decoding: response.body, as: UTF8.self))
        }
        throw TestFailure("more than ten redirects from \(first.url)")
    }

    private func keepCookies(_ response: HTTPResponse) {
        for (name, value) in response.headers where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";", maxSplits: 1).first ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let key = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let content = String(pair[pair.index(after: equals)...])
            cookies.withLock { $0[key] = content }
        }
    }
}
