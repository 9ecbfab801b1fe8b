enum SessionKitTestingModule {}
