import Foundation

// The floor for a program that uses Foundation, built exactly like sessionctl: what linking Foundation alone
// costs a process's start-up, beside `hello` (no Foundation). Prints one line from a file, as `token` does.
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/etc/hostname"
let data = FileManager.default.contents(atPath: path) ?? Data()
print(String(decoding: data.prefix(64), as: UTF8.self).split(separator: "\n").first ?? "")
