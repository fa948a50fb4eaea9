# what the run left: the test user's crontab
crontab -u brinecron1 -l
