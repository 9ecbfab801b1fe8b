/// Module marker; replaced as the module grows.
enum AuthEmulatorModule {}
