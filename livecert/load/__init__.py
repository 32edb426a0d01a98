"""`livecert load`: many players at many tables on Locust, every balance and bet reconciled."""
