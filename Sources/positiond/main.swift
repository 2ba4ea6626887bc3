print("positiond")
