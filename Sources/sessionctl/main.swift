print("sessionctl")
