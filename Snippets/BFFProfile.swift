// A back end for front ends with the profile routes: the user's profile and user_metadata through the Management
// API, with the back end's own client-credentials token (SessionKitBFF's pages).

// snippet.hide
import Foundation
import SessionKitBFF

// snippet.show
var configuration = try BackendForFrontend.Configuration(publicURL: URL(string: "https://app.example.com")!)
configuration.profile = .init(editableMetadataKeys: ["theme", "language"])
