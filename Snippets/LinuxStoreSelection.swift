// On Linux, StoreSelection picks a program's store and says so when it falls back (SecureStore.md).

// snippet.hide
import SecureStore

// snippet.show
let selection = try StoreSelection.make(
    service: "com.example.app", folder: EncryptedFileStore.Configuration.defaultFolder())
if let warning = selection.warning { print("warning: \(warning)") }  // never a silent downgrade
