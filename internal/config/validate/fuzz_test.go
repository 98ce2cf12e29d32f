package validate
