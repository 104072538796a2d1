"""Calendar feeds (iCalendar): a private feed per user of every open phase's deadline in their
campaigns, and a public feed of one campaign's deadlines."""
