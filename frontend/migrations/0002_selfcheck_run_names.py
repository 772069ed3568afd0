# The editor's test runs renamed for what they are (issue 28): TestRun read like pytest code.
# Renames keep every row: the tables are renamed, the foreign key's column too.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("frontend", "0001_initial"),
    ]

    operations = [
        migrations.RenameModel(old_name="TestRun", new_name="SelfCheckRun"),
        migrations.RenameModel(old_name="TestRunEpisode", new_name="SelfCheckEpisode"),
        migrations.RenameField(model_name="selfcheckepisode", old_name="test_run", new_name="run"),
    ]
